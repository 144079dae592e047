# `tessera create`, `tessera matches`, `tessera export` end to end against a
# real server (tests/cli/remote.sh): bad arguments, an unreachable server,
# the printed `tessera bot` line pasted and played, a record that
# `tessera replay` accepts.
add_test(NAME cli_remote COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/remote.sh $<TARGET_FILE:tessera>)
set_tests_properties(cli_remote PROPERTIES LABELS cli TIMEOUT 180)
