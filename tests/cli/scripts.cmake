# scripts/run.sh and scripts/deps.sh on a machine that lacks packages (fake
# dpkg-query, apt-get and pkg-config on PATH; builds in temporary folders):
# deps.sh names what it could not install, the build configures without
# cmocka when the tests are off, run.sh shows cmake's reason when configure
# fails; run_fresh builds the program the way a first run does (about 10 s
# on 2 idle cores) and checks that it serves.
set(_scripts_sh ${CMAKE_CURRENT_LIST_DIR}/scripts.sh)
foreach(case deps_fail configure_no_cmocka configure_needs_cmocka run_missing_package run_fresh)
  add_test(NAME scripts_${case} COMMAND bash ${_scripts_sh} ${PROJECT_SOURCE_DIR} ${case})
  set_tests_properties(scripts_${case} PROPERTIES LABELS "cli;once" TIMEOUT 900)
endforeach()
