# The stdio bot protocol (protocol/stdio.h): the lines a bot may print, one
# directory per case under stdio_cases/; the messages tessera writes, checked
# against the JSON Schemas of docs/schema/stdio/.
tessera_add_test(test_stdio_cases
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_stdio_cases.c ${CMAKE_CURRENT_LIST_DIR}/case_dirs.c
  LIBS tessera_protocol
  ARGS ${CMAKE_CURRENT_LIST_DIR}/stdio_cases)

tessera_add_test(test_stdio
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_stdio.c ${CMAKE_CURRENT_LIST_DIR}/case_dirs.c
          ${CMAKE_CURRENT_LIST_DIR}/schema_check.c
  LIBS tessera_protocol
  ARGS ${PROJECT_SOURCE_DIR}/docs)

# Thinking lines (protocol/info.h): info messages checked against a position,
# one directory per case under info_cases/, and the rate rule.
tessera_add_test(test_info_cases
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_info_cases.c ${CMAKE_CURRENT_LIST_DIR}/case_dirs.c
  LIBS tessera_protocol
  ARGS ${CMAKE_CURRENT_LIST_DIR}/info_cases)

# Our own reader of info lines (protocol/infotext.h) against the general way
# (jansson, info_read): the info cases, the fuzz corpus, generated lines.
tessera_add_test(test_info_text
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_info_text.c ${CMAKE_CURRENT_LIST_DIR}/case_dirs.c
  LIBS tessera_protocol
  ARGS ${CMAKE_CURRENT_LIST_DIR}/info_cases ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/info)
