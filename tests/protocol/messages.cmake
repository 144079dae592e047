# Client messages (protocol/messages.h): valid messages of every type, the
# JSON Schemas of docs/schema/ and the examples of docs/protocol.md; then the
# invalid messages, one directory per case under msg_cases/.
tessera_add_test(test_messages
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_messages.c ${CMAKE_CURRENT_LIST_DIR}/case_dirs.c
  LIBS tessera_protocol
  ARGS ${PROJECT_SOURCE_DIR}/docs ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/messages)

tessera_add_test(test_messages_cases
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_messages_cases.c ${CMAKE_CURRENT_LIST_DIR}/case_dirs.c
  LIBS tessera_protocol
  ARGS ${CMAKE_CURRENT_LIST_DIR}/msg_cases)
