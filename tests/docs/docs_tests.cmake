# tests/docs/docs_tests.cmake — documentation that is generated from the code must match it.
# docs.commands: docs/commands.md against `attention-cli help` and each command's page, regenerated
# into the build tree by scripts/dev/make-command-reference.sh --check, which names the script to
# rerun when the committed file differs.
add_test(NAME docs.commands
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/dev/make-command-reference.sh --check
                 $<TARGET_FILE:attention-cli> ${PROJECT_BINARY_DIR}/docs/commands.md)
set_tests_properties(docs.commands PROPERTIES LABELS core)
