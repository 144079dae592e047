# Classroom competitions (classroom/, server/courses.c, docs/classroom.md).
# test_classroom: the roster CSV, tokens, upload checks, the ladder and its
# verdicts, the class_ tables, their upgrade and the grade CSV on a
# hand-filled database (on SQLite and on PostgreSQL: the fixture `services`),
# and a real two-game gate through the runner (stderr kept). classroom_access (Node): who sees what,
# refused uploads, and a short course end to end (two-game gates, a final of
# two). classroom_e2e (Node, slow, ~1.5 min): the issue's course of six
# students and five Python bots, from roster to grades. classroom_remote (Node,
# ~1-2 min): remote-bot submissions with a real `tessera bridge --register`:
# gates as server matches, a bot that never connects, the final. classroom_langs
# (Node, ~1 min): a submission in each language (Python, Java, C, C++,
# JavaScript) built in the sandbox and through a gate; compile errors shown.
# classroom_upload (Node, ~1 min): uploads in chunks and zips (each bad one
# refused), a bot with its weights file through a gate, Java builds queued on
# their own thread while a live match of in-process bots moves.
tessera_add_test(test_classroom
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_classroom.c
  LIBS tessera_classroom
  ARGS ${CMAKE_CURRENT_LIST_DIR}/bots
  TIMEOUT 120)
tessera_needs_services(test_classroom)
# test_final_pairs: a final's last two pairs stored at once by two servers on
# PostgreSQL — one of them finishes the final (classroom/finals.c).
tessera_add_test(test_final_pairs
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_final_pairs.c
  LIBS tessera_classroom
  TIMEOUT 60)
tessera_needs_services(test_final_pairs)
find_program(TESSERA_NODE NAMES node nodejs)
foreach(_t access e2e remote langs upload tree resume)
  if(TESSERA_NODE)
    add_test(NAME classroom_${_t}
      COMMAND ${TESSERA_NODE} ${CMAKE_CURRENT_LIST_DIR}/test_course_${_t}.js $<TARGET_FILE:tessera>
      WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
  else()
    add_test(NAME classroom_${_t}
      COMMAND sh -c "if [ \"$TESSERA_SKIP_MISSING\" = 1 ]; then echo 'SKIPPED: node (Node.js) is not installed'; exit 77; fi; echo 'MISSING: node (Node.js) is not installed: scripts/deps.sh node installs it (TESSERA_SKIP_MISSING=1 skips these tests)'; exit 1")
    set_tests_properties(classroom_${_t} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endforeach()
set_tests_properties(classroom_access PROPERTIES LABELS "server;classroom" TIMEOUT 180)
set_tests_properties(classroom_remote PROPERTIES LABELS "server;classroom" TIMEOUT 400)
set_tests_properties(classroom_e2e PROPERTIES LABELS "server;classroom;slow" TIMEOUT 600)
set_tests_properties(classroom_langs PROPERTIES LABELS "server;classroom" TIMEOUT 600)
set_tests_properties(classroom_upload PROPERTIES LABELS "server;classroom" TIMEOUT 600)
set_tests_properties(classroom_tree PROPERTIES LABELS "server;classroom" TIMEOUT 300)
set_tests_properties(classroom_resume PROPERTIES LABELS "server;classroom" TIMEOUT 300)
# The instructor's tryout of issue 25 (bench/course_tryout.js): 30 students,
# bots in five languages through gates, deadline, final and grades, its checks
# failing the test — on one server, and on three servers behind haproxy (the
# fixture `services`). Slow: several minutes each on a loaded machine.
if(TESSERA_NODE)
  add_test(NAME classroom_tryout
    COMMAND ${TESSERA_NODE} ${PROJECT_SOURCE_DIR}/bench/course_tryout.js $<TARGET_FILE:tessera> --window-s 30 --quiet
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(classroom_tryout PROPERTIES LABELS "server;classroom;slow" TIMEOUT 3600)
  add_test(NAME cluster_tryout
    COMMAND ${TESSERA_NODE} ${PROJECT_SOURCE_DIR}/bench/course_tryout.js $<TARGET_FILE:tessera> --window-s 30 --cluster 3 --quiet
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cluster_tryout PROPERTIES LABELS "cluster;slow" TIMEOUT 3600)
  tessera_needs_services(cluster_tryout)
endif()
