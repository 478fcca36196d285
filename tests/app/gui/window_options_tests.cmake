# tests/app/gui/window_options_tests.cmake — attention-workbench's own options: a bad value is one line
# on stderr and exit 2, before a window opens. Included when the GUI is built.
foreach(bad "size;12;--size 12: expected WIDTHxHEIGHT, e.g. 1366x768"
            "scale;bright;--scale bright: expected fixed, auto, log or row"
            "dtype;fp8;--dtype fp8: expected f32, bf16, f16 or auto"
            "zoom;5-1,1-4;--zoom 5-1,1-4: expected Q1-Q2,K1-K2 in tokens from 1, e.g. 2049-2560,1-512")
  list(GET bad 0 option)
  list(GET bad 1 value)
  list(GET bad 2 message)
  string(JOIN "^^" command "$<TARGET_FILE:attention-workbench>" --${option} ${value})
  add_test(NAME gui.bad_${option}
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${command}" -DEXPECT_EXIT=2 "-DEXPECT_REGEX=^attention-workbench: ${message}"
                   -DEXPECT_STDERR_LINES=1 -P ${aw_test_support_dir}/run_cli.cmake)
  set_tests_properties(gui.bad_${option} PROPERTIES LABELS gui
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen;XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime")
endforeach()

# Help needs no display (it used to abort in Qt's xcb plugin); without a display the window says so
# in one line instead of Qt's plugin error.
string(JOIN "^^" help_command ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY --unset=QT_QPA_PLATFORM
       "$<TARGET_FILE:attention-workbench>" --help)
add_test(NAME gui.help_without_display
         COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${help_command}" -DEXPECT_EXIT=0
                 "-DEXPECT_REGEX=Usage: [^\n]*attention-workbench \\[options\\].*--sample-data <DIR>.*--screenshot <FILE>"
                 -P ${aw_test_support_dir}/run_cli.cmake)
string(JOIN "^^" bare_command ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY --unset=QT_QPA_PLATFORM
       "$<TARGET_FILE:attention-workbench>" --sample-data sample_data)
add_test(NAME gui.no_display
         COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${bare_command}" -DEXPECT_EXIT=1 -DEXPECT_STDERR_LINES=1
                 "-DEXPECT_REGEX=^attention-workbench: no display to open the window on \\(DISPLAY is not set\\)"
                 -P ${aw_test_support_dir}/run_cli.cmake)
set_tests_properties(gui.help_without_display gui.no_display PROPERTIES LABELS gui)
