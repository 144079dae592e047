# The generic bot suite (tests/bots/test_bots.c) over every registered bot
# type and every registered game and seat count: legal moves only,
# determinism by seed, the stop flag, a loose ms= check (wide margins; the
# precise figures come from `tessera bench --bot`), bad specs. About 25 s of
# CPU (about 200 s under the sanitizers, hence the timeout). Sources by this
# fragment's directory (see tests/CMakeLists.txt).
tessera_add_test(test_bots
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_bots.c
  LIBS tessera_bots Threads::Threads m
  TIMEOUT 900)
# The required strength bar: mcts:sims=400 wins >= 95% of 40 two-player
# Carcassonne games against random (about 5 s of CPU, ~20 s wall on a loaded
# machine, so it stays in the default run; 10 games under the sanitizers).
add_test(NAME test_bots_strength COMMAND test_bots --strength)
set_tests_properties(test_bots_strength PROPERTIES LABELS unit TIMEOUT 300)
