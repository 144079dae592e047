# The conformance vectors (tests/kit/kit.sh): the shipped files in kit/vectors
# are what `tessera vectors` writes now (else they are stale), the same
# arguments always write the same bytes, bad arguments exit 2.
set(_kit_sh ${CMAKE_CURRENT_LIST_DIR}/kit.sh)
foreach(case vectors)
  add_test(NAME kit_${case} COMMAND bash ${_kit_sh} $<TARGET_FILE:tessera> ${case}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(kit_${case} PROPERTIES LABELS kit TIMEOUT 300)
endforeach()
