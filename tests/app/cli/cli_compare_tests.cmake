# tests/app/cli/cli_compare_tests.cmake — Bird-Eye Table 2's machinery from the command line: several
# seeds of one variant (train --seeds), compare's mean ± sd and Welch's t-test, its --reference, and
# runs recorded by eval --json counting as their models. Uses cli_tests.cmake's fixtures.
# Several seeds of one variant (train --seeds), then mean ± sd per variant and Welch's t-test (compare).
aw_cli_test(train_seeds EXIT 0 REGEX "saved to[^\n]*\n?[^\n]*/seeds_bet_sf/seed-2\n.*saved to[^\n]*\n?[^\n]*/seeds_bet_sf/seed-3\n.*train: seed 3 \\(2 of 2\\) → [^\n]*/seeds_bet_sf/seed-3\n"
            ARGS train --arch bet_sf --train ${fixtures}/corpus.txt --valid ${fixtures}/corpus.txt --layers 1 --heads 2
                 --d-model 8 --d-ff 16 --window 8 --epochs 1 --batch 2 --seeds 2,3 --out ${fixtures}/seeds_bet_sf)
aw_cli_test(compare_variants EXIT 0 STDOUT_LINES 5
            REGEX "perplexity on [^\n]*/corpus.txt, mean ± sd over the runs of each variant\n  seeded +2 runs  [0-9.]+ ± [0-9.]+\n  others +2 runs  [0-9.]+ ± [0-9.]+\nWelch's t-test between variants \\(Holm over the 1 tests\\)\n  seeded − others: [-+][0-9.]+ .95 % [-+][0-9.]+, [-+][0-9.]+.  t = [-0-9.]+, df = [0-9.]+, p = [0-9.e-]+, Holm p = [0-9.e-]+\n"
            ARGS compare --variant seeded=${fixtures}/seeds_bet_sf/seed-2,${fixtures}/seeds_bet_sf/seed-3
                 --variant others=${fixtures}/tiny_lm,${fixtures}/tiny_bet_sf --text ${fixtures}/corpus.txt --window 8)
set_tests_properties(cli.compare_variants PROPERTIES DEPENDS cli.train_seeds)
# --reference: that variant first, against each other one; its name on the tests CSV's first line.
aw_cli_test(compare_reference EXIT 0
            REGEX "Welch's t-test of others against each other variant \\(Holm over the 2 tests\\)\n  others − seeded: [^\n]*\n  others − again: "
            OUT_FILE ${fixtures}/compare_tests.csv
            OUT_FILE_REGEX "^# metric=perplexity, test=welch, correction=holm, reference=others\nfirst,second,difference,ci_low,ci_high,t,df,p_value,p_holm\nothers,seeded,[^\n]*\nothers,again,"
            ARGS compare --variant seeded=${fixtures}/seeds_bet_sf/seed-2,${fixtures}/seeds_bet_sf/seed-3
                 --variant others=${fixtures}/tiny_lm,${fixtures}/tiny_bet_sf --variant again=${fixtures}/tiny_bet_sf,${fixtures}/tiny_lm
                 --reference others --text ${fixtures}/corpus.txt --window 8 --tests ${fixtures}/compare_tests.csv)
set_tests_properties(cli.compare_reference PROPERTIES DEPENDS cli.train_seeds)
aw_cli_test(error_compare_reference EXIT 1 STDERR_LINES 1 REGEX "error: the reference 'vanilla' is none of the variants \\(a, b\\)\n"
            ARGS compare --variant a=${fixtures}/tiny_lm,${fixtures}/tiny_bet_sf --variant b=${fixtures}/tiny_lm,${fixtures}/tiny_bet_sf
                 --reference vanilla --text ${fixtures}/corpus.txt --window 8)
# Runs recorded by eval --json (seeds whose weights were not kept) count as their models would.
add_test(NAME cli.compare_recorded_runs
         COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:attention-cli> -DFIXTURES=${fixtures}
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/compare_records -P ${aw_test_support_dir}/compare_records_check.cmake)
set_tests_properties(cli.compare_recorded_runs PROPERTIES FIXTURES_REQUIRED cli_models LABELS cli DEPENDS cli.train_seeds)
aw_cli_test(error_compare_one_run EXIT 1 STDERR_LINES 1 REGEX "variant 'a' has 1 model; Welch's t-test needs at least 2 runs of each variant"
            ARGS compare --variant a=${fixtures}/tiny_lm --variant b=${fixtures}/tiny_lm,${fixtures}/tiny_bet_sf
                 --text ${fixtures}/corpus.txt --window 8)
aw_cli_test(error_compare_mixed_kinds EXIT 1 STDERR_LINES 1 REGEX "tiny_lama is scored by accuracy, the models before it by perplexity; compare models of one kind"
            ARGS compare --variant a=${fixtures}/tiny_lm,${fixtures}/tiny_lama --variant b=${fixtures}/tiny_lm,${fixtures}/tiny_bet_sf
                 --text ${fixtures}/corpus.txt)
aw_cli_test(error_train_seeds_with_seed EXIT 1 STDERR_LINES 1 REGEX "--seeds runs one training per seed; --seed does not go with it"
            ARGS train --arch bet_sf --train ${fixtures}/corpus.txt --valid ${fixtures}/corpus.txt --seeds 1,2 --seed 3
                 --out ${fixtures}/never)
aw_cli_test(error_train_lambda_p EXIT 1 STDERR_LINES 1 REGEX "--lambda-p applies to --arch bet_sg only \\(this run trains transformer_lm\\)"
            ARGS train --arch transformer_lm --lambda-p 0.5 --train ${fixtures}/corpus.txt --valid ${fixtures}/corpus.txt
                 --out ${fixtures}/never)
aw_cli_test(error_train_bet_sg_plain_text EXIT 1 STDERR_LINES 1 REGEX "corpus.txt: is not a CoNLL-U \\(.conllu\\) file"
            ARGS train --arch bet_sg --train ${fixtures}/corpus.txt --valid ${fixtures}/corpus.txt --out ${fixtures}/never)
aw_cli_test(error_train_lm_on_labelled_file EXIT 1 STDERR_LINES 1
            REGEX "/labelled.tsv: holds label<TAB>text lines \\(a classifier's examples\\), but transformer_lm is a language model: train --arch transformer_lm needs plain text\n"
            ARGS train --arch transformer_lm --train ${fixtures}/corpus.txt --valid ${fixtures}/labelled.tsv --out ${fixtures}/never)
aw_cli_test(error_train_unknown_arch EXIT 1 STDERR_LINES 1 REGEX "--arch must be transformer_lm, bet_sf, bet_sg, lama, bigru_max, bigru_mean, encoder_classifier or transformer_mt, got .gpt5."
            ARGS train --arch gpt5 --train ${fixtures}/corpus.txt --valid ${fixtures}/corpus.txt --out ${fixtures}/never)

