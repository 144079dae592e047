# What the image's build stage copies is enough to configure the program (tests/docker/
# context.sh): no podman needed, seconds, in the default run — the image suites below are slow
# and a folder added to the tree but not to docker/Dockerfile broke the image unnoticed
# (base/, journal/, analysis/ and kit/ladder.json, 2026-12-02).
add_test(NAME docker_context COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/context.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(docker_context PROPERTIES LABELS "docker;once" TIMEOUT 300)
# The container image of docker/ built and run with podman, a match served to
# bots outside it (tests/docker/docker.sh). Label slow: it builds the program
# inside the image (minutes); run it with `ctest -L slow -R docker_image`.
add_test(NAME docker_image COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/docker.sh $<TARGET_FILE:tessera> ${PROJECT_SOURCE_DIR})
set_tests_properties(docker_image PROPERTIES LABELS "docker;slow" TIMEOUT 1800 SKIP_RETURN_CODE 77)
# docker/compose.cluster.yaml with podman-compose: three servers on PostgreSQL and Redis
# behind haproxy, a match played and watched through the proxy, its owner stopped and the
# match finished on another (tests/docker/cluster.sh, its client side in cluster.js).
# Label slow: it builds five images; `ctest -L slow -R docker_cluster`.
add_test(NAME docker_cluster COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cluster.sh $<TARGET_FILE:tessera> ${PROJECT_SOURCE_DIR})
set_tests_properties(docker_cluster PROPERTIES LABELS "docker;slow" TIMEOUT 2700 SKIP_RETURN_CODE 77)
# Hostile programs against the image (tests/docker/sandbox.sh: the spy, the victim and the
# burner of tests/sandbox in cmd: seats and a course, with --cap-add SYS_ADMIN as the compose
# files run it; without it, failing closed). Label slow: it builds the image.
add_test(NAME docker_sandbox COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/sandbox.sh $<TARGET_FILE:tessera> ${PROJECT_SOURCE_DIR})
set_tests_properties(docker_sandbox PROPERTIES LABELS "docker;slow;sandbox" TIMEOUT 2700 SKIP_RETURN_CODE 77)
