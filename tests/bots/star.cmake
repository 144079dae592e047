# The *-minimax bots (bots/star.c) against a plain expectimax oracle, plus
# legality in every game, determinism and budgets. tessera_add_test() hands
# SOURCES to add_executable from tests/, so files are named by this
# fragment's directory. --slow runs four times as many positions.
tessera_add_test(test_star SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_star.c
                 LIBS tessera_bots m TIMEOUT 600)
add_test(NAME test_star_slow COMMAND test_star --slow)
set_tests_properties(test_star_slow PROPERTIES LABELS slow TIMEOUT 7200)

# Time per decision at depth 2 in real Carcassonne positions: a program, not
# a test (`build/tests/bench_star --seeds 5`).
add_executable(bench_star ${CMAKE_CURRENT_LIST_DIR}/bench_star.c)
target_link_libraries(bench_star PRIVATE tessera_bots tessera_engine m)
target_include_directories(bench_star PRIVATE ${PROJECT_SOURCE_DIR})
