# Several servers on one PostgreSQL database with Redis between them
# (docs/scaling.md): Node suites (tests/cluster/test_*.js, the harness in
# cluster.js over tests/server/lib.js) against the throwaway PostgreSQL and
# Redis of the fixture `services` (tests/storage/storage.cmake), haproxy in
# front where a suite needs one address. Each suite makes its own database;
# the suites that lose PostgreSQL or Redis on purpose start their own.
file(GLOB _cl_tests RELATIVE ${CMAKE_CURRENT_LIST_DIR} ${CMAKE_CURRENT_LIST_DIR}/test_*.js)
list(SORT _cl_tests)
foreach(_f ${_cl_tests})
  string(REGEX REPLACE "^test_(.*)\\.js$" "cluster_\\1" _name ${_f})
  if(TESSERA_NODE)
    add_test(NAME ${_name}
      COMMAND ${TESSERA_NODE} ${CMAKE_CURRENT_LIST_DIR}/${_f} $<TARGET_FILE:tessera>
      WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
  else()
    add_test(NAME ${_name} COMMAND sh -c "echo 'MISSING: node (Node.js) is not installed: scripts/deps.sh node installs it'; exit 1")
  endif()
  set_tests_properties(${_name} PROPERTIES LABELS cluster TIMEOUT 300)
  # test_script.js's subject is scripts/cluster.sh, not the build: once (no ASan pass)
  if(_name STREQUAL "cluster_script")
    set_tests_properties(${_name} PROPERTIES LABELS "cluster;once")
  endif()
  tessera_needs_services(${_name})
endforeach()
