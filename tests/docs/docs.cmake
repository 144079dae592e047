# Every reference resolves inside the repository (tests/docs/links.js): each
# Markdown link names a file that exists and an anchor it has; no file cites
# design notes kept outside the repository or a paper by its seed number
# (docs/references.md gives the short names). Needs node; without
# it the test fails with a message rather than passing unseen.
find_program(TESSERA_NODE NAMES node nodejs)
if(TESSERA_NODE)
  add_test(NAME docs_links COMMAND ${TESSERA_NODE} ${CMAKE_CURRENT_LIST_DIR}/links.js ${PROJECT_SOURCE_DIR})
else()
  add_test(NAME docs_links COMMAND ${CMAKE_COMMAND} -E false)
  message(STATUS "node not found: docs_links will fail (scripts/deps.sh node installs it)")
endif()
set_tests_properties(docs_links PROPERTIES LABELS unit TIMEOUT 60)
# Every field a program is sent is named where its author reads
# (tests/docs/fields.js): the message schemas' fields in protocol.md and
# stdio.md, `tessera games --json` (the games' static data, Carcassonne's
# tiles) in protocol.md and its schema, the Carcassonne state in stdio.md.
if(TESSERA_NODE)
  add_test(NAME docs_fields
    COMMAND ${TESSERA_NODE} ${CMAKE_CURRENT_LIST_DIR}/fields.js ${PROJECT_SOURCE_DIR} $<TARGET_FILE:tessera>)
else()
  add_test(NAME docs_fields COMMAND ${CMAKE_COMMAND} -E false)
endif()
set_tests_properties(docs_fields PROPERTIES LABELS unit TIMEOUT 60)
