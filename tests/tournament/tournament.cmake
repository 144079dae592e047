# The tournament engine (tournament/): every format's schedule and bad
# specs (test_tour_schedule), standings and league points on hand-built
# results (test_tour_standings), the rating fit, Wilson, SPRT and ladder
# against independent references (test_tour_stats), persistence with a real
# kill -9 on SQLite (test_tour_store) and the same cases on PostgreSQL
# (test_tour_store_pg, on the cluster of the fixture `services`), and the
# reports (test_tour_report).
# Results come from a synthetic model with a fixed generator: no game is
# played and nothing looks at a clock.
tessera_add_test(test_tour_schedule
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_schedule.c
  LIBS tessera_tournament
  TIMEOUT 120)
tessera_add_test(test_tour_stats
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_stats.c
  LIBS tessera_tournament
  TIMEOUT 300)
tessera_add_test(test_tour_standings
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_standings.c
  LIBS tessera_tournament
  TIMEOUT 60)
tessera_add_test(test_tour_store
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store.c
  LIBS tessera_tournament
  TIMEOUT 120)
add_test(NAME test_tour_store_pg COMMAND test_tour_store pg)
set_tests_properties(test_tour_store_pg PROPERTIES LABELS "unit;storage" TIMEOUT 240)
tessera_needs_services(test_tour_store_pg)
tessera_add_test(test_tour_report
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_report.c
  LIBS tessera_tournament
  TIMEOUT 60)
# The driver (tournament/driver.h) against a host of its own: every game
# started once within the concurrency, a host without room or with a busy
# participant, a start refused, a start whose record is not kept undone, a
# lost game played again.
tessera_add_test(test_tour_driver
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_driver.c
  LIBS tessera_tournament
  TIMEOUT 60)
# The local runner (tournament/runner.h) playing real games: records stored
# with results and verified against their chance seeds, think/wait times,
# faulty programs (tests/players/bad/) under both policies, stop and
# continue, the same results at any concurrency.
tessera_add_test(test_runner
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runner.c
  LIBS tessera_tournament
  ARGS ${PROJECT_SOURCE_DIR}
  TIMEOUT 300)
