# mcts-d2 (bots/mcts_d2.c) on hand-built Pentago-Twist and Dodgem positions:
# it takes a win, blocks a threat, never hands the opponent the win, and is
# plain mcts with the check off. `--strength` is the bar of plain mcts on the
# new games: mcts:sims=1000 wins >= 95% of 60 games against random in each
# (about 6 s of CPU; 10 games under the sanitizers).
tessera_add_test(test_mcts_d2
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_mcts_d2.c
  LIBS tessera_bots
  TIMEOUT 300)
add_test(NAME test_mcts_d2_strength COMMAND test_mcts_d2 --strength)
set_tests_properties(test_mcts_d2_strength PROPERTIES LABELS unit TIMEOUT 600)
# EvoMCTS: typed GP expressions (bots/tgp.c), the evomcts bot's evaluation
# files, and the offline evolution (bots/evolve.c): determinism across
# threads and across a checkpoint, the stop flag, broken checkpoints.
tessera_add_test(test_evomcts
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_evomcts.c
  LIBS tessera_bots Threads::Threads
  ARGS ${PROJECT_SOURCE_DIR}/docs/examples
  TIMEOUT 600)
