# `cmake --install` into a temporary prefix, the tree moved, its binary run:
# the web UI and docs are installed and found there (tests/cli/install.sh).
add_test(NAME cli_install COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/install.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_install PROPERTIES LABELS cli TIMEOUT 120)
