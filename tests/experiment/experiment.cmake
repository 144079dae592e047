# experiment: the papers' tables (experiment/). test_experiment checks the
# definitions, the statistics and the verdict; experiment.sh runs
# `tessera experiment` end to end: every built-in experiment in its quick
# mode (2 games a row, tiny budgets: a few seconds each) with the structure
# of its reports, resume from the store, --report, and bad arguments.
tessera_add_test(test_experiment
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_experiment.c
  LIBS tessera_experiment
  TIMEOUT 60)
set(_exp_sh ${CMAKE_CURRENT_LIST_DIR}/experiment.sh)
# run from the source root: the EvoMCTS experiments read docs/examples/evomcts-*.txt
set_tests_properties(test_experiment PROPERTIES WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
foreach(case list report resume rows bad)
  add_test(NAME experiment_${case} COMMAND bash ${_exp_sh} $<TARGET_FILE:tessera> ${case})
  set_tests_properties(experiment_${case} PROPERTIES LABELS cli TIMEOUT 60
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endforeach()
foreach(name es-ix evomcts-v evomcts-vi evomcts-vii evomcts-x evomcts-xi evomcts-xii
    muller-5.5 muller-5.6 muller-5.7 siea-iii siea-iv siea-vi siea-viii siea-x siea-xi)
  add_test(NAME experiment_quick_${name}
    COMMAND bash ${_exp_sh} $<TARGET_FILE:tessera> quick ${name})
  set_tests_properties(experiment_quick_${name} PROPERTIES LABELS cli TIMEOUT 120
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endforeach()
