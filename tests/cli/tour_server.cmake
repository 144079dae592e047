# `tessera tournament --url` (tests/cli/tour_server.sh): a tournament created,
# started and followed on a real server, the standings printed checked
# against the server's; --detach and --watch; the refusals.
add_test(NAME cli_tournament_server
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/tour_server.sh $<TARGET_FILE:tessera> $<TARGET_FILE:wsctl>)
set_tests_properties(cli_tournament_server PROPERTIES LABELS cli TIMEOUT 240)
