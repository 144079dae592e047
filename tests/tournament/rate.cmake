# The rating against a fixed ladder (tournament/rate.h, `tessera rate`):
# the fit against independent answers, and the adaptive schedule's coverage on
# games drawn from known ratings. No game is played.
tessera_add_test(test_tour_rate
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rate.c
  LIBS tessera_tournament
  TIMEOUT 120)
