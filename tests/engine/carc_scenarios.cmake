# Carcassonne tile-definition tests and hand-built scoring scenarios.
# tessera_add_test() (tests/CMakeLists.txt) hands SOURCES to add_executable
# from the tests/ directory, so name the files by this fragment's directory.
tessera_add_test(test_carc_tiles SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_carc_tiles.c)
tessera_add_test(test_carc_scenarios SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_carc_scenarios.c)
tessera_add_test(test_carc_heyden SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_carc_heyden.c)
