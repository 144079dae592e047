# Server integration tests: Node.js scripts (tests/server/test_*.js, node:test)
# that each start their own `tessera serve` process on a free port with a
# temporary database and drive it over the WebSocket protocol of
# docs/protocol.md, as a third-party client would. lib.js is their shared
# harness. They need `node` and the npm package ws (pinned in
# tests/server/package.json + package-lock.json; scripts/test.sh runs
# `npm ci` there when node_modules is missing; scripts/deps.sh installs
# node), and some use the sqlite3 command (scripts/deps.sh test).
# Without node each test FAILS with a message naming what is missing (CTest
# would count a skip as a pass); TESSERA_SKIP_MISSING=1 in the environment
# of ctest turns that into a skip, for a machine that knowingly lacks it.
find_program(TESSERA_NODE NAMES node nodejs)
set(_srv_dir ${CMAKE_CURRENT_LIST_DIR})
file(GLOB _srv_tests RELATIVE ${_srv_dir} ${_srv_dir}/test_*.js)
list(SORT _srv_tests)
# suites too long for the default run: the 30-minute soak (test_idle.js
# runs its keep-alive with --idle-timeout-ms in seconds, so it is not one)
set(_srv_slow test_soak.js test_programs_memory.js)
if(NOT TESSERA_NODE)
  message(WARNING "node not found: the server integration tests (tests/server) will fail "
    "(scripts/deps.sh node installs it; TESSERA_SKIP_MISSING=1 makes them skips)")
endif()
foreach(_f ${_srv_tests})
  string(REGEX REPLACE "^test_(.*)\\.js$" "server_\\1" _name ${_f})
  if(TESSERA_NODE)
    add_test(NAME ${_name}
      COMMAND ${TESSERA_NODE} ${_srv_dir}/${_f} $<TARGET_FILE:tessera>
      WORKING_DIRECTORY ${_srv_dir})
  else()
    add_test(NAME ${_name}
      COMMAND sh -c "if [ \"$TESSERA_SKIP_MISSING\" = 1 ]; then echo 'SKIPPED: node (Node.js) is not installed'; exit 77; fi; echo 'MISSING: node (Node.js) is not installed: scripts/deps.sh node installs it (TESSERA_SKIP_MISSING=1 skips these tests)'; exit 1")
    set_tests_properties(${_name} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
  if(_f IN_LIST _srv_slow)
    set_tests_properties(${_name} PROPERTIES LABELS "server;slow" TIMEOUT 300)
  else()
    set_tests_properties(${_name} PROPERTIES LABELS server TIMEOUT 180)
  endif()
endforeach()
# 30 minutes of play, and the warm-up (test_soak.js)
set_tests_properties(server_soak PROPERTIES TIMEOUT 2700)
# the long run's claim in the default run too (issue 30): 200 games of a
# program, the server's memory, descriptors, threads and children flat
if(TESSERA_NODE)
  add_test(NAME server_programs_memory_short
    COMMAND ${TESSERA_NODE} ${_srv_dir}/test_programs_memory.js $<TARGET_FILE:tessera>
    WORKING_DIRECTORY ${_srv_dir})
  set_tests_properties(server_programs_memory_short PROPERTIES LABELS server TIMEOUT 300
    ENVIRONMENT TESSERA_PROG_GAMES=200)
endif()

# No registered suite passes having run nothing (tests/server/suites.sh).
if(TESSERA_NODE)
  add_test(NAME server_suites_apply
    COMMAND bash ${_srv_dir}/suites.sh ${CMAKE_BINARY_DIR} ${TESSERA_NODE})
  set_tests_properties(server_suites_apply PROPERTIES LABELS server TIMEOUT 60)
endif()

# The same suites on the second storage engine: each as server_pg_NAME, with
# TESSERA_TEST_STORAGE=pg (lib.js gives every server a fresh PostgreSQL
# database of the fixture `services`, tests/storage/storage.cmake). A suite
# about the SQLite file itself (lib.js sqliteOnly) is not registered there.
if(TESSERA_NODE)
  foreach(_f ${_srv_tests})
    if(_f IN_LIST _srv_slow)
      continue()
    endif()
    # a suite about the SQLite file itself (lib.js sqliteOnly) would run
    # nothing there: it is not registered (tests/server/suites.sh checks)
    file(STRINGS ${_srv_dir}/${_f} _sqlite_only REGEX "sqliteOnly\\(")
    if(_sqlite_only)
      continue()
    endif()
    string(REGEX REPLACE "^test_(.*)\\.js$" "server_pg_\\1" _name ${_f})
    # on PostgreSQL test_durable.js crashes the database (a cluster of its
    # own) rather than cutting a WAL of ours: named for what it does
    if(_f STREQUAL "test_durable.js")
      set(_name server_pg_db_crash)
    endif()
    add_test(NAME ${_name}
      COMMAND ${TESSERA_NODE} ${_srv_dir}/${_f} $<TARGET_FILE:tessera>
      WORKING_DIRECTORY ${_srv_dir})
    set_tests_properties(${_name} PROPERTIES LABELS "server;pg" TIMEOUT 240
      FIXTURES_REQUIRED services
      ENVIRONMENT "TESSERA_SERVICES=${TESSERA_SERVICES_DIR};TESSERA_TEST_STORAGE=pg")
  endforeach()
  # the bind and quota checks' way for a machine without an external IPv4
  # address (127.0.0.2, a client forwarded by a trusted proxy) runs in the
  # default set too, whatever this machine has: server_access takes the
  # external address when there is one, its PostgreSQL twin never does
  set_property(TEST server_pg_access APPEND PROPERTY ENVIRONMENT TESSERA_TEST_NO_EXTERNAL=1)
endif()
