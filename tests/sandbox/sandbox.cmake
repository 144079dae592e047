# Hostile programs started by a server (tests/sandbox/test_sandbox_server.js):
# cmd: seats and course uploads, a spy and a victim in one match and one
# final, a program whose children think for it; the server run as root and
# as nobody in a delegated cgroup (and, without one, failing closed). The
# local cmd: participant is test_sandbox's (tests/players), the container's
# docker_sandbox (tests/docker). They fail (not skip) when the machine cannot
# isolate programs, unless TESSERA_SKIP_MISSING=1.
find_program(TESSERA_NODE NAMES node nodejs)
foreach(_m root nonroot)
  if(TESSERA_NODE)
    add_test(NAME sandbox_server_${_m}
      COMMAND ${TESSERA_NODE} ${CMAKE_CURRENT_LIST_DIR}/test_sandbox_server.js $<TARGET_FILE:tessera> ${_m}
      WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
  else()
    add_test(NAME sandbox_server_${_m}
      COMMAND sh -c "if [ \"$TESSERA_SKIP_MISSING\" = 1 ]; then echo 'SKIPPED: node (Node.js) is not installed'; exit 77; fi; echo 'MISSING: node (Node.js) is not installed: scripts/deps.sh node installs it (TESSERA_SKIP_MISSING=1 skips these tests)'; exit 1")
  endif()
  set_tests_properties(sandbox_server_${_m} PROPERTIES LABELS "sandbox;server" TIMEOUT 900
    SKIP_RETURN_CODE 77)
endforeach()
