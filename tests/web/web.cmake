# Web UI tests: tests/web/ui.test.js drives Debian's chromium (/usr/bin/chromium,
# never a downloaded browser) with the npm package playwright-core against a
# real `tessera serve` (port 0 + port file, temporary database) serving web/.
# npm packages are pinned in tests/web/package.json + package-lock.json
# (scripts/test.sh runs `npm ci` there); scripts/deps.sh installs chromium.
# Without node, chromium or the npm packages the test FAILS with a message
# naming what is missing (CTest would count a skip as a pass);
# TESSERA_SKIP_MISSING=1 in the environment of ctest makes it a skip (exit
# 77) for a machine that knowingly lacks them.
# Screenshots go to <build>/tests/web/screenshots/. To refresh the README's
# picture: node tests/web/ui.test.js --bin build/cli/tessera --web web
#   --out /tmp/shots --readme-shot docs/screenshot-live.png
find_program(TESSERA_NODE NAMES node nodejs)
set(_web_out ${CMAKE_CURRENT_BINARY_DIR}/web)
if(TESSERA_NODE)
  add_test(NAME web_ui
    COMMAND ${TESSERA_NODE} ${CMAKE_CURRENT_LIST_DIR}/ui.test.js
      --bin $<TARGET_FILE:tessera> --web ${PROJECT_SOURCE_DIR}/web --out ${_web_out}
    WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
else()
  message(WARNING "node not found: the web UI tests (tests/web) will fail "
    "(scripts/deps.sh node installs it; TESSERA_SKIP_MISSING=1 makes them skips)")
  add_test(NAME web_ui
    COMMAND sh -c "if [ \"$TESSERA_SKIP_MISSING\" = 1 ]; then echo 'SKIPPED: node (Node.js) is not installed'; exit 77; fi; echo 'MISSING: node (Node.js) is not installed: scripts/deps.sh node installs it (TESSERA_SKIP_MISSING=1 skips this test)'; exit 1")
endif()
# its whole game through the UI alone took 92 s at load 27: 600 s (x2, tests/CMakeLists.txt)
# ran out in a fresh bookworm container at that load (2026-12-02), mid-suite
set_tests_properties(web_ui PROPERTIES LABELS "web" TIMEOUT 600 COST 60 SKIP_RETURN_CODE 77)
