# Engine conformance: the Reversi bitboards against a slow reference, perft,
# and one suite of interface contracts run over every registered game.
# tessera_add_test() hands SOURCES to add_executable from tests/, so the files
# are named by this fragment's directory.
tessera_add_test(test_reversi SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_reversi.c)
# perft depths 10 and 11 (~237 million leaves): same program, --deep
tessera_add_test(test_reversi_perft_deep SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_reversi.c
                 ARGS --deep LABELS slow TIMEOUT 1800)
tessera_add_test(test_conformance SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_conformance.c LIBS m)
