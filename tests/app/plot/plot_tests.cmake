# tests/app/plot/plot_tests.cmake — attention-plot end to end: each kind drawn from the CSV
# attention-cli writes for it (on the tiny fixture models of tests/app/cli/cli_tests.cmake) into a
# PNG, and each bad input with its one line and exit code. Included when the GUI is built.
set(plots ${CMAKE_CURRENT_BINARY_DIR}/plot_fixtures)
set(labelled_lama ${fixtures}/labelled_lama.tsv)
set(cli $<TARGET_FILE:attention-cli>)
file(WRITE ${plots}/pairs.tsv "w2 w3 w4 w5\tw2 w3 w9 w5\tw4\tw9\nw8 w3 w4\tw8 w10 w4\tw3\tw10\n")
add_test(NAME plot.write_csvs
         COMMAND ${CMAKE_COMMAND} -E env bash -c
           "set -e; mkdir -p ${plots}; rm -f ${plots}/*.png
            ${cli} stats --model ${fixtures}/tiny_lm --model ${fixtures}/tiny_bet_sf --text ${fixtures}/corpus.txt --window 8 --out ${plots}/stats.csv
            ${cli} ablate --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --out ${plots}/ablation.csv
            ${cli} ablate --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --mode all-but-one --out ${plots}/alone.csv
            ${cli} importance --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --out ${plots}/importance.csv
            ${cli} prune --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --order both --bootstrap 50 --min-units 2 --out ${plots}/pruning.csv
            ${cli} diag-sweep --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --bootstrap 50 --min-units 2 --out ${plots}/diag.csv
            ${cli} word-weights --model ${fixtures}/tiny_lama --data ${labelled_lama} --words w2,w3 --summary ${plots}/summary.csv --density ${plots}/density.csv >/dev/null
            ${cli} eap --model ${fixtures}/tiny_lm --pairs ${plots}/pairs.tsv --sizes 2,8,75 --out ${plots}/edges.csv --circuits-out ${plots}/circuits.csv
            ${cli} token-attribution --model ${fixtures}/tiny_lm --text \"w2 w3 w4 w5 w6\" --out ${plots}/tokens.csv")
set_tests_properties(plot.write_csvs PROPERTIES FIXTURES_REQUIRED cli_models FIXTURES_SETUP plot_csvs LABELS cli)

# aw_plot_test(<name> EXIT <code> REGEX <regex> [STDERR_LINES n] [PNG file] ARGS <args...>)
function(aw_plot_test name)
  cmake_parse_arguments(P "" "PNG" "" ${ARGN})
  set(png)
  if(DEFINED P_PNG)  # a PNG file starts with \x89 "PNG"
    set(png OUT_FILE ${P_PNG} OUT_FILE_REGEX "^.PNG")
  endif()
  aw_command_test(plot.${name} attention-plot ${P_UNPARSED_ARGUMENTS} ${png})
  set_tests_properties(plot.${name} PROPERTIES FIXTURES_REQUIRED plot_csvs LABELS cli
                       ENVIRONMENT "XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime")
endfunction()

foreach(kind "table1;stats" "ablation;ablation" "ablation;alone" "importance;importance" "pruning;pruning"
             "diag-sweep;diag" "head-scores;importance")
  list(GET kind 0 plot_kind)
  list(GET kind 1 csv)
  aw_plot_test(${plot_kind}_${csv} EXIT 0 REGEX "^$" PNG ${plots}/${plot_kind}_${csv}.png
               ARGS ${plot_kind} ${plots}/${csv}.csv --png ${plots}/${plot_kind}_${csv}.png --size 640x400)
endforeach()
aw_plot_test(word_weights EXIT 0 REGEX "^$" PNG ${plots}/words.png
             ARGS word-weights ${plots}/summary.csv --density ${plots}/density.csv --scale length --png ${plots}/words.png)
aw_plot_test(word_weights_title EXIT 0 REGEX "^$" PNG ${plots}/words_head.png
             ARGS word-weights ${plots}/summary.csv --density ${plots}/density.csv --title "head 2 of LAMA" --png ${plots}/words_head.png)
aw_plot_test(circuit_faithfulness EXIT 0 REGEX "^$" PNG ${plots}/circuits.png
             ARGS circuit-faithfulness ${plots}/edges.csv --circuits ${plots}/circuits.csv --png ${plots}/circuits.png)
aw_plot_test(token_attribution EXIT 0 REGEX "^$" PNG ${plots}/tokens.png
             ARGS token-attribution ${plots}/tokens.csv --png ${plots}/tokens.png)
aw_plot_test(pruning_title EXIT 0 REGEX "^$" PNG ${plots}/pruning_title.png
             ARGS pruning ${plots}/pruning.csv --title "BLEU by attention kind" --png ${plots}/pruning_title.png)
aw_plot_test(help EXIT 0 REGEX "usage: attention-plot KIND.*word-weights" ARGS --help)

# Bad input: one line, a non-zero exit, and no figure.
aw_plot_test(error_no_file EXIT 1 STDERR_LINES 1 REGEX "error: attention-plot: /no/such.csv: cannot open"
             ARGS pruning /no/such.csv --png ${plots}/never.png)
aw_plot_test(error_head_scores EXIT 1 STDERR_LINES 1
             REGEX "diag.csv: not a head-scores table: it has no 'layer' column \\(attention-cli importance writes one\\)"
             ARGS head-scores ${plots}/diag.csv --png ${plots}/never.png)
aw_plot_test(error_wrong_table EXIT 1 STDERR_LINES 1
             REGEX "stats.csv: not a diag-sweep table: it has no 'factor' column \\(attention-cli diag-sweep writes one\\)"
             ARGS diag-sweep ${plots}/stats.csv --png ${plots}/never.png)
aw_plot_test(error_kind EXIT 2 STDERR_LINES 1 REGEX "error: attention-plot: unknown kind 'heatmap' \\(attention-plot --help"
             ARGS heatmap ${plots}/stats.csv --png ${plots}/never.png)
aw_plot_test(error_no_output EXIT 2 STDERR_LINES 1 REGEX "--png or --pdf is required" ARGS table1 ${plots}/stats.csv)
aw_plot_test(error_size EXIT 2 STDERR_LINES 1 REGEX "--size must be WIDTHxHEIGHT between 200x150 and 8000x8000, got '10x10'"
             ARGS table1 ${plots}/stats.csv --png ${plots}/never.png --size 10x10)
aw_plot_test(error_density EXIT 2 STDERR_LINES 1 REGEX "word-weights needs --density"
             ARGS word-weights ${plots}/summary.csv --png ${plots}/never.png)
aw_plot_test(error_circuits EXIT 2 STDERR_LINES 1 REGEX "circuit-faithfulness needs --circuits \\(eap --circuits-out FILE\\)"
             ARGS circuit-faithfulness ${plots}/edges.csv --png ${plots}/never.png)
aw_plot_test(error_circuits_table EXIT 1 STDERR_LINES 1
             REGEX "edges.csv: not a circuits table: it has no 'edges' column \\(attention-cli eap --circuits-out writes one\\)"
             ARGS circuit-faithfulness ${plots}/edges.csv --circuits ${plots}/edges.csv --png ${plots}/never.png)
aw_plot_test(error_title EXIT 2 STDERR_LINES 1 REGEX "--title goes with word-weights and pruning only"
             ARGS table1 ${plots}/stats.csv --png ${plots}/never.png --title x)
aw_plot_test(error_unwritable EXIT 1 STDERR_LINES 1 REGEX "/no/such/dir/x.png: cannot be written"
             ARGS table1 ${plots}/stats.csv --png /no/such/dir/x.png)
add_test(NAME plot.errors_leave_no_figure COMMAND ${CMAKE_COMMAND} -E env bash -c "! ls ${plots}/never.png* 2>/dev/null")
set_tests_properties(plot.errors_leave_no_figure PROPERTIES DEPENDS
  "plot.error_no_file;plot.error_wrong_table;plot.error_kind;plot.error_no_output;plot.error_size;plot.error_density;plot.error_circuits;plot.error_circuits_table;plot.error_title"
  FIXTURES_REQUIRED plot_csvs LABELS cli)
