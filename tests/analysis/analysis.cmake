# analysis/ (docs/analysis.md): a Reversi corner given away marked a blunder
# with a better move that keeps it, two identical strong bots with few marks,
# Carcassonne's luck + skill = the final score difference, every game, bad
# input. About 20 s of CPU (the same budgets under the sanitizers, about 5 times slower).
tessera_add_test(test_analysis
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_analysis.c
  LIBS tessera_analysis m
  TIMEOUT 600)
