# The Python kit and the conformance vectors (tests/kit/kit.sh, one CTest test
# per case): the kit's unit tests, the kit against its shipped vectors and
# against new ones the engine writes (and the shipped files checked for
# staleness), both example bots through `tessera doctor`, through `tessera
# bridge` and the kit's WebSocket loop on a real server, `pip install` of the
# kit offline, and `tessera rate` (arguments, a ladder bot rated within its
# published interval, a crashing program's faults). `kit_greedy` (slow) plays the greedy example against
# heuristic over 40 paired games. Debian's python3 with python3-websockets
# and python3-pip runs them (scripts/deps.sh test).
set(_kit_sh ${CMAKE_CURRENT_LIST_DIR}/kit.sh)
foreach(case vectors unit shipped fresh doctor server pip rate bundle greedy)
  add_test(NAME kit_${case} COMMAND bash ${_kit_sh} $<TARGET_FILE:tessera> ${case}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(kit_${case} PROPERTIES LABELS kit TIMEOUT 300)
endforeach()
set_tests_properties(kit_greedy PROPERTIES LABELS "kit;slow" TIMEOUT 1200)
