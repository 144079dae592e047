# Game records (protocol/record.h): the round trip over many random games,
# and the invalid-record cases, one directory per case under cases/.
tessera_add_test(test_records
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_records.c
  LIBS tessera_protocol
  TIMEOUT 600)
# Ten times the games of the default run (10,000 per seat count there).
add_test(NAME test_records_slow COMMAND test_records 100000)
set_tests_properties(test_records_slow PROPERTIES LABELS slow TIMEOUT 3600)

tessera_add_test(test_record_cases
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_record_cases.c ${CMAKE_CURRENT_LIST_DIR}/case_dirs.c
  LIBS tessera_protocol
  ARGS ${CMAKE_CURRENT_LIST_DIR}/cases)
# Verifiable games (protocol/chance.h): commitments against sha256sum,
# seeds and nonces, the per-event chance streams, and the verification of
# honest and tampered records.
tessera_add_test(test_chance
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_chance.c
  LIBS tessera_protocol)
