# engine/textbuf.h, the growing text, against a fixed-array reference.
tessera_add_test(test_textbuf SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_textbuf.c)
