# `tessera evolve` end to end (tests/cli/evolve.sh): a short Reversi run with
# a checkpoint and --out played back by evomcts:eval=FILE, stop-and-resume
# equal to an uninterrupted run, SIGINT, and bad arguments (exit 2).
add_test(NAME cli_evolve
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/evolve.sh $<TARGET_FILE:tessera>)
set_tests_properties(cli_evolve PROPERTIES LABELS cli TIMEOUT 600)
