# `tessera tournament` and `tessera replay --verify` end to end
# (tests/cli/tournament.sh): every format's game counts, --out reports and
# records, the Python example as a cmd: participant, resume after kill -9,
# honest and tampered records, an SPRT that stops early, bad arguments.
# JSON and the SQLite file are read with python3 (scripts/deps.sh test).
foreach(case formats out python resume verify sprt bad)
  add_test(NAME cli_tournament_${case}
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/tournament.sh $<TARGET_FILE:tessera> ${PROJECT_SOURCE_DIR} ${case})
  set_tests_properties(cli_tournament_${case} PROPERTIES LABELS cli TIMEOUT 600)
endforeach()
