# `tessera bridge` end to end (tests/cli/bridge.sh, one CTest test per case):
# the example bots of docs/examples/ through the bridge on a real server, a
# program that crashes mid-game under two policies, a server restart and a
# bridge killed and started again. python3 runs the Python programs; the C
# example is built by tests/players/players.cmake.
set(_bridge_sh ${CMAKE_CURRENT_LIST_DIR}/bridge.sh)
foreach(case args python examples crash reconnect bridge_kill after_game_over)
  add_test(NAME cli_bridge_${case}
    COMMAND bash ${_bridge_sh} $<TARGET_FILE:tessera> $<TARGET_FILE:wsctl> $<TARGET_FILE:stdio_bot>
            ${case}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli_bridge_${case} PROPERTIES LABELS cli TIMEOUT 180)
endforeach()
