# Carcassonne: the engine checked against a slow oracle, and invariants over
# many random games. Sources are given by absolute path so the fragment does
# not depend on the directory it is included from.
set(_carc_dir ${CMAKE_CURRENT_LIST_DIR})

tessera_add_test(test_carc_oracle
  SOURCES ${_carc_dir}/test_carc_oracle.c ${_carc_dir}/carc_oracle.c
  TIMEOUT 300)

# The big run of the same program: 3,000 games per configuration (about 5
# minutes of CPU). Named so that `ctest -R 'carc_(oracle|random)'` skips it.
add_test(NAME test_carc_slow_oracle COMMAND test_carc_oracle --slow)
set_tests_properties(test_carc_slow_oracle PROPERTIES LABELS slow TIMEOUT 7200)

tessera_add_test(test_carc_random
  SOURCES ${_carc_dir}/test_carc_random.c
  LIBS m
  TIMEOUT 600)
