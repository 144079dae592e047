# Protocol 2's compact forms: the state change (protocol/delta.h) round-trips
# over random game states and random values, bad changes are refused with a
# reason; Carcassonne's compact legal entries say what protocol 1's say.
tessera_add_test(test_delta
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_delta.c
  LIBS tessera_protocol)
