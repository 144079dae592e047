# players/: the players interface and the sandbox. The example bots of
# docs/examples/ and the adversarial programs of bad/ are run as real
# external programs. The C programs are built without sanitizers: they run
# under RLIMIT_AS, which ASan's shadow memory cannot live with.
foreach(prog stdio_bot)
  add_executable(${prog} ${PROJECT_SOURCE_DIR}/docs/examples/${prog}.c)
endforeach()
add_executable(bad_segv ${CMAKE_CURRENT_LIST_DIR}/bad/segv.c)
foreach(prog stdio_bot bad_segv)
  set_target_properties(${prog} PROPERTIES COMPILE_OPTIONS "-O2;-Wall;-Wextra" LINK_OPTIONS "")
endforeach()

set(_players_common ${CMAKE_CURRENT_LIST_DIR}/driver.c ${PROJECT_SOURCE_DIR}/tests/protocol/case_dirs.c
    ${PROJECT_SOURCE_DIR}/tests/protocol/schema_check.c)

tessera_add_test(test_players
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_players.c ${_players_common}
  LIBS tessera_players tessera_bots Threads::Threads
  ARGS ${PROJECT_SOURCE_DIR} $<TARGET_FILE:stdio_bot>
  LABELS players
  TIMEOUT 300)
add_dependencies(test_players stdio_bot)
target_include_directories(test_players PRIVATE ${PROJECT_SOURCE_DIR}/tests)

# The adversarial programs of bad/ (hostile.py: a spy, a victim and a
# burner in one game), the sandbox's isolation seen from inside and from
# outside, failing closed, and 1,000 program starts without a leak. It fails
# (not skips) when the machine cannot isolate programs, unless
# TESSERA_SKIP_MISSING=1.
tessera_add_test(test_sandbox
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sandbox.c ${CMAKE_CURRENT_LIST_DIR}/driver.c
  LIBS tessera_players tessera_bots
  ARGS ${PROJECT_SOURCE_DIR} $<TARGET_FILE:bad_segv> $<TARGET_FILE:stdio_bot>
  LABELS players
  TIMEOUT 600)
add_dependencies(test_sandbox bad_segv stdio_bot)

# The same isolation asserted as an unprivileged user: as root, CTest runs
# the suite's "nonroot" subset as nobody in a cgroup delegated to it
# (tests/players/nonroot.sh, scripts/delegate-cgroup.sh); as another user,
# directly. It fails when nobody cannot reach the build (77 with
# TESSERA_SKIP_MISSING=1).
add_test(NAME test_sandbox_nonroot
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/nonroot.sh ${PROJECT_SOURCE_DIR}
          $<TARGET_FILE:test_sandbox> ${PROJECT_SOURCE_DIR} $<TARGET_FILE:bad_segv> $<TARGET_FILE:stdio_bot> nonroot)
set_tests_properties(test_sandbox_nonroot PROPERTIES LABELS players SKIP_RETURN_CODE 77 TIMEOUT 300)
set_tests_properties(test_sandbox PROPERTIES SKIP_RETURN_CODE 77)

# players/fenced.h: a computation in a fenced child — its answers, its
# crashes, the fence's refusals, its limits, nothing left behind.
tessera_add_test(test_fenced
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fenced.c
  LIBS tessera_players Threads::Threads
  LABELS players
  TIMEOUT 120)
