# protocol/jsontext.h: the server's fast JSON writer writes exactly what
# json_dumps(JSON_COMPACT) writes (edge cases, random values, game states).
tessera_add_test(test_jsontext
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_jsontext.c
  LIBS tessera_protocol)
