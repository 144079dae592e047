# `tessera play --record`: an unwritable path is refused before the game is
# played (exit 2); a failed write exits 1; a good record replays.
add_test(NAME cli_play_record COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/play.sh $<TARGET_FILE:tessera>)
set_tests_properties(cli_play_record PROPERTIES LABELS cli TIMEOUT 60)
