# `tessera doctor` end to end (tests/doctor/doctor.sh, one CTest test per
# case): our bots and the examples pass; each deliberately broken bot of
# bots/ (and three of tests/players/bad/) fails the check it should, with
# the verdict it should; bad arguments exit 2. The programs run in the
# sandbox, as python3 scripts and the C example built by players.cmake.
set(_doctor_sh ${CMAKE_CURRENT_LIST_DIR}/doctor.sh)
foreach(case args pass stateless broken)
  add_test(NAME doctor_${case}
    COMMAND bash ${_doctor_sh} $<TARGET_FILE:tessera> $<TARGET_FILE:stdio_bot> ${case}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(doctor_${case} PROPERTIES LABELS "doctor;cli" TIMEOUT 240)
endforeach()
