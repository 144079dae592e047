# `tessera match`, `tessera bots` and `tessera bench --bot` run as a user
# would: the built binary in a child process; exit codes, messages, and the
# JSON of the last line parsed with jansson.
tessera_add_test(test_cli_match
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_match.c
  LIBS PkgConfig::JANSSON
  ARGS $<TARGET_FILE:tessera> ${PROJECT_SOURCE_DIR}
  LABELS cli
  TIMEOUT 120)
add_dependencies(test_cli_match tessera)
