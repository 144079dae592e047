# The wire codecs of Dodgem and Pentago-Twist: legal moves, states and moves
# round-trip in random games; bad moves get bad_move / illegal_move.
tessera_add_test(test_wire_games
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_wire_games.c
  LIBS tessera_protocol)
# Every registered game's codec (protocol/codec.h), generically: the
# registries agree; legal entries, moves, turns, record turns and whole
# records round-trip in random games of every seat count and rules variant.
tessera_add_test(test_codecs
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_codecs.c
  LIBS tessera_protocol)
