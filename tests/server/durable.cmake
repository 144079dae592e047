# The long variant of test_durable.js (server_durable runs 3 kill -9 cuts by
# default): 24 runs, each a durable server killed at a random moment of play
# and its WAL cut where the last fsync left it.
find_program(TESSERA_NODE NAMES node nodejs)
if(TESSERA_NODE)
  add_test(NAME server_durable_many
    COMMAND ${TESSERA_NODE} ${CMAKE_CURRENT_LIST_DIR}/test_durable.js $<TARGET_FILE:tessera>
    WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
  set_tests_properties(server_durable_many PROPERTIES LABELS "server;slow" TIMEOUT 600
    ENVIRONMENT TESSERA_DURABLE_RUNS=24)
endif()
