# The page tests of the web UI (issue 15): each drives Debian's chromium with
# playwright-core against its own `tessera serve`, like web_ui (web.cmake).
#   web_phone     every page at 390×844 and 1280×800: no sideways overflow, a
#                 usable board, reachable links, a move made on a phone
#   web_features  favicon, live score chart, turn cue, replay tile, board
#                 coordinates, bot option help, stats page, P1..P5 labels
#   web_takeover  a seat taken over by a second tab, and taken back
#   web_tournament  a tournament's page: standings that update while it runs,
#                 the cross-table, ratings, game links, plots, at 390 px too
#   web_games     Dodgem and Pentago-Twist: a whole game of each played by
#                 clicking at 1280×800 and at 390×844, a bot game watched and
#                 its replay stepped through, pieces checked against the states
#   web_replaylog a record of `tessera match --out` replayed with its program's
#                 log: each turn's verdict, debug and stderr beside the board
#   web_analyze   a finished match's replay analysed: the win-probability graph,
#                 a click on it to jump, the better square drawn, the stored
#                 analysis for the second page; a record file of three players
#                 opened in the lobby analysed too, a line per player
#   web_thinking  a bot's thinking lines: candidates with their share on the
#                 board, the panel, the value line, live to a spectator while it
#                 thinks, never on its opponent's page; then in the replay
#   web_course    the classroom pages: a course made on #/instructor, a roster,
#                 a student's upload and gates on #/course at 390 px, the final,
#                 the grade CSV downloaded
#   web_course_manage  the instructor's undo: a past deadline refused, an
#                 extension, the gates and the final played again, archive, delete
#   web_course_games  the final's tiebreaks, ratings, cross-table; every game
#                 replayed by name across a reload; the phone's headings, tap
#                 targets, no server path, the lobby's status
#   web_course_scrimmage  the live scrimmage ladder: its table on the
#                 instructor's and (with "class") a student's page, a game
#                 opened by name, the setting changed on the page, at 390 px too
#   web_course_resume  an upload resumed after the student's page reloads
#                 midway: the rest only, at 1280×800 and 390×844
# Screenshots go to <build>/tests/web/screenshots/. Without node, chromium
# or the npm packages each test FAILS naming what is missing;
# TESSERA_SKIP_MISSING=1 in ctest's environment makes that a skip (exit 77),
# for a machine that knowingly lacks them (web_missing_tools checks both).
find_program(TESSERA_NODE NAMES node nodejs)
foreach(_page phone features takeover tournament games course course_manage course_games course_scrimmage course_resume replaylog analyze thinking)
  if(TESSERA_NODE)
    add_test(NAME web_${_page}
      COMMAND ${TESSERA_NODE} ${CMAKE_CURRENT_LIST_DIR}/${_page}.test.js
        --bin $<TARGET_FILE:tessera> --web ${PROJECT_SOURCE_DIR}/web
        --out ${CMAKE_CURRENT_BINARY_DIR}/web
      WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
  else()
    add_test(NAME web_${_page}
      COMMAND sh -c "if [ \"$TESSERA_SKIP_MISSING\" = 1 ]; then echo 'SKIPPED: node (Node.js) is not installed'; exit 77; fi; echo 'MISSING: node (Node.js) is not installed: scripts/deps.sh node installs it (TESSERA_SKIP_MISSING=1 skips this test)'; exit 1")
  endif()
  set_tests_properties(web_${_page} PROPERTIES LABELS "web" TIMEOUT 300 COST 30
    SKIP_RETURN_CODE 77)
endforeach()
# Every web suite fails without chromium or its npm packages, naming them, and
# skips only with TESSERA_SKIP_MISSING=1 (tests/web/missing.sh).
if(TESSERA_NODE)
  add_test(NAME web_missing_tools
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/missing.sh ${TESSERA_NODE})
  set_tests_properties(web_missing_tools PROPERTIES LABELS "web" TIMEOUT 120)
endif()
# web_route: the page on a cluster (docs/scaling.md, "Routing clients to the
# owner"): two servers on PostgreSQL and Redis behind haproxy routing
# ?server=NAME; a player's and a spectator's page opened on the server that
# does not own the match move to the one that does (1280×800, 390×844), a
# page of another origin stays and is forwarded, and the owner's stop sends
# the player back through the proxy to the server that took the match over.
# Label cluster: it needs the fixture `services` (PostgreSQL, Redis) as the
# cluster suites do, and haproxy; label once: its subject is the page's
# script, not the build (the sanitizers see the servers' forwarding and
# takeover through tests/cluster), so the ASan pass leaves it out.
if(TESSERA_NODE)
  add_test(NAME web_route
    COMMAND ${TESSERA_NODE} ${CMAKE_CURRENT_LIST_DIR}/route.test.js
      --bin $<TARGET_FILE:tessera> --web ${PROJECT_SOURCE_DIR}/web
      --out ${CMAKE_CURRENT_BINARY_DIR}/web
    WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
else()
  add_test(NAME web_route
    COMMAND sh -c "if [ \"$TESSERA_SKIP_MISSING\" = 1 ]; then echo 'SKIPPED: node (Node.js) is not installed'; exit 77; fi; echo 'MISSING: node (Node.js) is not installed: scripts/deps.sh node installs it (TESSERA_SKIP_MISSING=1 skips this test)'; exit 1")
endif()
set_tests_properties(web_route PROPERTIES LABELS "web;cluster;once" TIMEOUT 300 COST 30 SKIP_RETURN_CODE 77)
tessera_needs_services(web_route)
