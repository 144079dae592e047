# Server integration tests: Node.js scripts (tests/server/test_*.js, node:test)
# that each start their own `tessera serve` process on a free port with a
# temporary database and drive it over the WebSocket protocol of
# docs/protocol.md, as a third-party client would. lib.js is their shared
# harness. They need `node` and the npm package ws (pinned in
# tests/server/package.json + package-lock.json; scripts/test.sh runs
# `npm ci` there when node_modules is missing; scripts/deps.sh installs
# node). Without node they are registered as skipped, with a message.
# test_idle.js waits out the keep-alive timeout (~1 minute): label slow.
find_program(TESSERA_NODE NAMES node nodejs)
set(_srv_dir ${CMAKE_CURRENT_LIST_DIR})
file(GLOB _srv_tests RELATIVE ${_srv_dir} ${_srv_dir}/test_*.js)
list(SORT _srv_tests)
set(_srv_slow test_idle.js)
if(NOT TESSERA_NODE)
  message(STATUS "node not found: the server integration tests (tests/server) will be skipped")
endif()
foreach(_f ${_srv_tests})
  string(REGEX REPLACE "^test_(.*)\\.js$" "server_\\1" _name ${_f})
  if(TESSERA_NODE)
    add_test(NAME ${_name}
      COMMAND ${TESSERA_NODE} ${_srv_dir}/${_f} $<TARGET_FILE:tessera>
      WORKING_DIRECTORY ${_srv_dir})
  else()
    add_test(NAME ${_name}
      COMMAND ${CMAKE_COMMAND} -E echo
        "SKIPPED: node (Node.js) is not installed; scripts/deps.sh node installs it")
    set_tests_properties(${_name} PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED: node")
  endif()
  if(_f IN_LIST _srv_slow)
    set_tests_properties(${_name} PROPERTIES LABELS "server;slow" TIMEOUT 300)
  else()
    set_tests_properties(${_name} PROPERTIES LABELS server TIMEOUT 180)
  endif()
endforeach()
