# The evolved-formula bots (bots/gp.c, bots/ea.c): protected operators,
# infix printing and parsing, the UCT seed, mutation bounds and statistics,
# SSD and semantic selection on constructed data, tree-copy isolation,
# budget accounting, legality in every game and seat count, determinism.
# No timing assertions. `test_ea --bench [positions]` is a benchmark
# (ms per move and sims/s against plain MCTS) that CTest never runs.
tessera_add_test(test_ea
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ea.c
  LIBS tessera_bots
  TIMEOUT 300)
