# The match layer (tournament/match.h): statistics on constructed results,
# seat rotation and shared tiles on real games, determinism across thread
# counts. A few dozen random games in all; no timing assertions.
tessera_add_test(test_match
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_match.c
  LIBS tessera_tournament Threads::Threads
  TIMEOUT 120)
