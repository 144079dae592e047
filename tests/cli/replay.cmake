# `tessera replay` end to end: the built binary on real records from the
# invalid-record cases (tests/protocol/cases). Two direct tests show the
# exit codes at a glance; replay.sh checks codes, messages and options.
set(_replay_cases ${CMAKE_CURRENT_LIST_DIR}/../protocol/cases)

add_test(NAME cli_replay_valid
  COMMAND $<TARGET_FILE:tessera> replay ${_replay_cases}/valid-with-discard/input.json)
add_test(NAME cli_replay_illegal
  COMMAND $<TARGET_FILE:tessera> replay ${_replay_cases}/place-edges-mismatch/input.json)
# WILL_FAIL accepts any non-zero exit; replay.sh checks that it is exactly 2.
set_tests_properties(cli_replay_illegal PROPERTIES WILL_FAIL TRUE)
add_test(NAME cli_replay_script
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/replay.sh $<TARGET_FILE:tessera> ${_replay_cases})
set_tests_properties(cli_replay_valid cli_replay_illegal cli_replay_script PROPERTIES LABELS cli)
