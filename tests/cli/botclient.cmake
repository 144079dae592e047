# `tessera bot`, the network bot client, end to end: a real server process
# on a free port (--port 0 --port-file) with a temporary database, matches
# created with the wsctl helper, and `tessera bot` processes on the seats.
# tests/cli/botclient.sh holds the cases; each is its own CTest test.
add_executable(wsctl ${CMAKE_CURRENT_LIST_DIR}/wsctl.c)
target_link_libraries(wsctl PRIVATE tessera_client)

set(_botclient_sh ${CMAKE_CURRENT_LIST_DIR}/botclient.sh)
foreach(case args two_clients vs_inprocess deadline client_kill)
  add_test(NAME cli_bot_${case}
    COMMAND bash ${_botclient_sh} $<TARGET_FILE:tessera> $<TARGET_FILE:wsctl> ${case})
  set_tests_properties(cli_bot_${case} PROPERTIES LABELS cli TIMEOUT 120)
endforeach()
# kill -9 of the server, restart, reconnect: waits for the clients' backoff
add_test(NAME cli_bot_server_restart
  COMMAND bash ${_botclient_sh} $<TARGET_FILE:tessera> $<TARGET_FILE:wsctl> server_restart)
set_tests_properties(cli_bot_server_restart PROPERTIES LABELS cli TIMEOUT 180)
