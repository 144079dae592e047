# deps_programs: every program the default suites (and the test command's own
# steps) start comes from a package that `scripts/deps.sh` installs for the test
# command, or from the base every Debian has (tests/deps/programs.py). Suites that
# started haproxy and curl passed on machines that had them from earlier work and
# failed on a fresh one; this check fails on the machine where such a program is
# first used, naming the file, the line and the package to add.
add_test(NAME deps_programs
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/programs.py ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(deps_programs PROPERTIES LABELS "unit;deps;once" TIMEOUT 120 SKIP_RETURN_CODE 77)
