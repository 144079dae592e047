# `tessera serve` refusing to start: a port in use or an address this
# machine lacks (exit 1, the reason named, never "serving"), bad --demo specs
# (exit 2 before anything is opened). tests/cli/serve.sh holds the cases.
foreach(case port_in_use bad_host demo_args)
  add_test(NAME cli_serve_${case}
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/serve.sh $<TARGET_FILE:tessera> ${case})
  set_tests_properties(cli_serve_${case} PROPERTIES LABELS cli TIMEOUT 300)
endforeach()
