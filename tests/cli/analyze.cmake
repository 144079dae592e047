# `tessera analyze` end to end on the record cases of tests/protocol/cases
# (analyze.sh: outputs, standard input, bad records as `tessera replay`
# reports them, bad options). About 3 s.
add_test(NAME cli_analyze
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/analyze.sh $<TARGET_FILE:tessera>
          ${CMAKE_CURRENT_LIST_DIR}/../protocol/cases)
set_tests_properties(cli_analyze PROPERTIES LABELS cli TIMEOUT 300)
