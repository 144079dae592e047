# players/: the players interface and the sandbox. The example bots of
# docs/examples/ and the adversarial programs of bad/ are run as real
# external programs. The C programs are built without sanitizers: they run
# under RLIMIT_AS, which ASan's shadow memory cannot live with.
foreach(prog stdio_bot)
  add_executable(${prog} ${PROJECT_SOURCE_DIR}/docs/examples/${prog}.c)
endforeach()
add_executable(bad_segv ${CMAKE_CURRENT_LIST_DIR}/bad/segv.c)
foreach(prog stdio_bot bad_segv)
  set_target_properties(${prog} PROPERTIES COMPILE_OPTIONS "-O2;-Wall;-Wextra" LINK_OPTIONS "")
endforeach()

set(_players_common ${CMAKE_CURRENT_LIST_DIR}/driver.c ${PROJECT_SOURCE_DIR}/tests/protocol/case_dirs.c
    ${PROJECT_SOURCE_DIR}/tests/protocol/schema_check.c)

tessera_add_test(test_players
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_players.c ${_players_common}
  LIBS tessera_players tessera_bots
  ARGS ${PROJECT_SOURCE_DIR} $<TARGET_FILE:stdio_bot>
  LABELS players
  TIMEOUT 300)
add_dependencies(test_players stdio_bot)
target_include_directories(test_players PRIVATE ${PROJECT_SOURCE_DIR}/tests)
