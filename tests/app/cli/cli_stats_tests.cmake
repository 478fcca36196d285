# tests/app/cli/cli_stats_tests.cmake — Bird-Eye Table 1's intervals from the command line: over the
# paragraphs of a text when it has enough of them; one line and no interval columns when it has too
# few (one line for every model; also cli_tests.cmake's stats_two_models and samples_stats); over
# sentence pairs for a translation model (stats_translation); and the options they share with ablate
# that mean nothing here.
set(stats_interval_columns "CA_low,CA_high,HA_mean_low,HA_mean_high,Ratio_low,Ratio_high,Ratio_over_uniform_low,Ratio_over_uniform_high")
aw_cli_test(stats_intervals_over_paragraphs EXIT 0
            REGEX "# include_first_row=true, bootstrap=200, seed=5, unit=paragraphs, units=2, min_units=2\nmodel,layer,CA,HA_mean,HA_std,Ratio,uniform_CA,uniform_HA_mean,uniform_HA_std,uniform_Ratio,Ratio_over_uniform,CA_x_keys,HA_x_keys_mean,HA_x_keys_std,${stats_interval_columns}\ntiny_lm,1,[0-9.e-]+(,[0-9.e-]+)+\ntiny_lm,2,"
            ARGS stats --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --min-units 2 --bootstrap 200 --bootstrap-seed 5)
aw_cli_test(stats_too_few_paragraphs_one_line EXIT 0 STDERR_LINES 1
            REGEX "stats: no intervals: 2 paragraphs are fewer than the 3 independent units the bootstrap needs \\(--min-units\\)\n"
            ARGS stats --model ${fixtures}/tiny_lm --model ${fixtures}/tiny_bet_sf --text ${fixtures}/corpus.txt --window 8 --min-units 3)
aw_cli_test(error_stats_bootstrap_negative EXIT 1 STDERR_LINES 1 REGEX "attention-cli stats: --bootstrap must be at least 0, got -3\n"
            ARGS stats --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --bootstrap -3)
aw_cli_test(error_stats_correction EXIT 1 STDERR_LINES 1 REGEX "attention-cli stats: unknown option --correction"
            ARGS stats --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --correction bh)
# Models whose windows cut the text into different numbers of paragraphs: one line naming each count.
aw_cli_test(stats_too_few_units_per_model EXIT 0 STDERR_LINES 1
            REGEX "# include_first_row=true, significance=no intervals: fewer than the 20 independent units the bootstrap needs \\(--min-units\\): 1 paragraph for vanilla_lm and bet_sf; 2 paragraphs for induction_lm\n"
            ARGS stats --model ${samples}/vanilla_lm --model ${samples}/induction_lm --model ${samples}/bet_sf --text ${demo})
