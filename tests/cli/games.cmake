# `tessera games` and `tessera games --json` (tests/cli/games.sh): the list,
# the JSON against a real server's list_games, Carcassonne's tile model
# against docs/rules.md.
add_test(NAME cli_games
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/games.sh $<TARGET_FILE:tessera> $<TARGET_FILE:wsctl>)
set_tests_properties(cli_games PROPERTIES LABELS cli TIMEOUT 60)
