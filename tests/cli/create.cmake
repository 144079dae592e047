# `tessera create` for a bot author (tests/cli/create.sh): a program seat
# with --admin-token-file, the refusals without it or with a wrong one, and
# the open seat's `tessera bridge` line pasted and played.
add_test(NAME cli_create COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/create.sh $<TARGET_FILE:tessera>)
set_tests_properties(cli_create PROPERTIES LABELS cli TIMEOUT 180)
