# PostgreSQL and Redis for the suites that need them: one throwaway cluster
# for the whole run (CTest fixture `services`), started on free loopback
# ports by scripts/services.sh under the build folder and stopped at the end.
# A suite that needs it has FIXTURES_REQUIRED services and finds it through
# the environment variable TESSERA_SERVICES (tessera_needs_services below).
set(TESSERA_SERVICES_DIR ${CMAKE_BINARY_DIR}/services)
add_test(NAME services_start
  COMMAND sh -c "'${PROJECT_SOURCE_DIR}/scripts/services.sh' stop '${TESSERA_SERVICES_DIR}' 2>/dev/null; rm -rf '${TESSERA_SERVICES_DIR}' && '${PROJECT_SOURCE_DIR}/scripts/services.sh' start '${TESSERA_SERVICES_DIR}'")
set_tests_properties(services_start PROPERTIES FIXTURES_SETUP services LABELS services TIMEOUT 120)
add_test(NAME services_stop
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/services.sh stop ${TESSERA_SERVICES_DIR})
set_tests_properties(services_stop PROPERTIES FIXTURES_CLEANUP services LABELS services TIMEOUT 120)

# tessera_needs_services(TEST...): these tests run with the cluster up
function(tessera_needs_services)
  foreach(_t ${ARGN})
    set_tests_properties(${_t} PROPERTIES FIXTURES_REQUIRED services
      ENVIRONMENT "TESSERA_SERVICES=${TESSERA_SERVICES_DIR}")
  endforeach()
endfunction()

# storage/db.h on SQLite and on PostgreSQL: the same cases on both engines
tessera_add_test(test_db
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_db.c
  LIBS tessera_storage
  LABELS storage
  TIMEOUT 120)
tessera_needs_services(test_db)
