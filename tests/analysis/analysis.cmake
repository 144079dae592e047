# analysis/ (docs/analysis.md): a Reversi corner given away marked a blunder
# with a better move that keeps it, two identical strong bots with few marks,
# Carcassonne's luck + skill = the final score difference, every game, bad
# input, games of three to five seats, and the records of cases/ that broke it once. About 13 s of CPU in RelWithDebInfo (the same budgets
# under the sanitizers, about 5 to 10 times slower).
tessera_add_test(test_analysis
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_analysis.c
  LIBS tessera_analysis m
  ARGS ${CMAKE_CURRENT_LIST_DIR}/cases
  TIMEOUT 600)
