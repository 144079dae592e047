# Root-parallel search of the MCTS family (threads=N, bots/mcts.c): the same
# moves from the same seed whatever the threads' timing, every simulation in
# the merged root, legal moves in every game, time budget and stop flag, a
# stalled helper left behind at the deadline, threads=1 as the old search. About 10 s of CPU.
tessera_add_test(test_threads
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_threads.c
  LIBS tessera_bots Threads::Threads
  TIMEOUT 600)
