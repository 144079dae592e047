# Engine conformance: the Reversi bitboards against a slow reference, perft,
# and one suite of interface contracts run over every registered game.
# tessera_add_test() hands SOURCES to add_executable from tests/, so the files
# are named by this fragment's directory.
tessera_add_test(test_reversi SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_reversi.c)
# perft depths 10 and 11 (~237 million leaves): same program, --deep
tessera_add_test(test_reversi_perft_deep SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_reversi.c
                 ARGS --deep LABELS slow TIMEOUT 1800)
tessera_add_test(test_conformance SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_conformance.c LIBS m)
# Dodgem and Pentago-Twist against slow references written in the tests:
# perft, random games move by move, hand-built positions, the 3x3 Dodgem
# solve (--slow adds the 4x4 solve and deeper perft).
tessera_add_test(test_dodgem SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_dodgem.c)
tessera_add_test(test_dodgem_slow SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_dodgem.c
                 ARGS --slow LABELS slow TIMEOUT 1800)
tessera_add_test(test_pentago SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_pentago.c)
tessera_add_test(test_pentago_slow SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_pentago.c
                 ARGS --slow LABELS slow TIMEOUT 3600)
