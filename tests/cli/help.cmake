# The help texts against what the commands do (tests/cli/help.sh): serve's
# default address as bound, match's programs and --move-ms.
add_test(NAME cli_help COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/help.sh $<TARGET_FILE:tessera>)
set_tests_properties(cli_help PROPERTIES LABELS cli TIMEOUT 60)
