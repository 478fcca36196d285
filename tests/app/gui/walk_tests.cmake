# tests/app/gui/walk_tests.cmake — scripts/dev/gui-walk.sh: the real window driven under Xvfb with
# xdotool (samples, a typed sentence, layer, head and a head off, every tab run and exported, a saved
# session reopened). Skipped (exit 77) where Xvfb or xdotool is missing; install-deps.sh installs both.
add_test(NAME gui.walk
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/dev/gui-walk.sh $<TARGET_FILE:attention-workbench>
                 ${PROJECT_SOURCE_DIR}/sample_data ${PROJECT_BINARY_DIR}/gui-walk)
set_tests_properties(gui.walk PROPERTIES LABELS gui TIMEOUT 900 SKIP_RETURN_CODE 77)
