# The heuristic player: Carcassonne's rate_moves (engine/carcassonne/
# heuristic.c) and the `heuristic` bot. `test_heuristic --bench` prints speed
# figures and is not a test. Sources by absolute path (see engine fragments).
tessera_add_test(test_heuristic
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_heuristic.c
  LIBS tessera_bots
  TIMEOUT 300)
