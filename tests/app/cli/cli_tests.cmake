# tests/app/cli/cli_tests.cmake — attention-cli end to end: every command on tiny checkpoints written by a
# fixture, and every bad input with its one-line error and non-zero exit.
add_executable(write_fixtures ${aw_test_support_dir}/write_fixtures.cpp)
target_link_libraries(write_fixtures PRIVATE aw_test_support)

set(fixtures ${CMAKE_CURRENT_BINARY_DIR}/cli_fixtures)
add_test(NAME cli.write_fixtures COMMAND write_fixtures ${fixtures})
set_tests_properties(cli.write_fixtures PROPERTIES FIXTURES_SETUP cli_models LABELS cli)

# aw_command_test(<test name> <program> EXIT <code> REGEX <regex> [STDERR_LINES n] [STDOUT_LINES n]
#                 [OUT_FILE f [OUT_FILE_REGEX re]] ARGS <args...>): runs <program> through run_cli.cmake.
# The callers add the test's fixture, label and environment.
function(aw_command_test test_name program)
  cmake_parse_arguments(T "" "EXIT;REGEX;STDERR_LINES;STDOUT_LINES;OUT_FILE;OUT_FILE_REGEX" "ARGS" ${ARGN})
  set(extra)
  if(DEFINED T_STDOUT_LINES)
    list(APPEND extra -DEXPECT_STDOUT_LINES=${T_STDOUT_LINES})
  endif()
  if(DEFINED T_STDERR_LINES)
    list(APPEND extra -DEXPECT_STDERR_LINES=${T_STDERR_LINES})
  endif()
  if(DEFINED T_OUT_FILE)
    list(APPEND extra -DOUT_FILE=${T_OUT_FILE} "-DOUT_FILE_REGEX=${T_OUT_FILE_REGEX}")
  endif()
  # A list cannot cross the command line intact, so the arguments travel joined by "^^".
  string(JOIN "^^" command "$<TARGET_FILE:${program}>" ${T_ARGS})
  add_test(NAME ${test_name}
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${command}" -DEXPECT_EXIT=${T_EXIT} "-DEXPECT_REGEX=${T_REGEX}"
                   ${extra} -P ${aw_test_support_dir}/run_cli.cmake)
endfunction()

# aw_cli_test(<name> EXIT <code> REGEX <regex> [STDERR_LINES n] [STDOUT_LINES n] [OUT_FILE f [OUT_FILE_REGEX re]] ARGS <args...>)
function(aw_cli_test name)
  aw_command_test(cli.${name} attention-cli ${ARGN})
  set_tests_properties(cli.${name} PROPERTIES FIXTURES_REQUIRED cli_models LABELS cli)
endfunction()

# Commands that work.
aw_cli_test(info EXIT 0 REGEX "architecture transformer_lm.*parameters +[0-9]+" ARGS info --model ${fixtures}/tiny_lm --device cpu)
# A model by its Hub name, from the cache write_fixtures lays out (tests/models/checkpoint/test_hub_cache.cpp
# tests the resolution itself).
aw_cli_test(info_hub_name EXIT 0 REGEX "architecture transformer_lm" ARGS info --model aw-test/tiny_lm)
aw_cli_test(error_hub_name_missing EXIT 1 STDERR_LINES 1
            REGEX "aw-test/missing is not a folder here, and not in the Hub cache \\(.*/hub/models--aw-test--missing does not exist\\); fetch it with: hf download aw-test/missing\n"
            ARGS info --model aw-test/missing)
aw_cli_test(error_hub_revision_missing EXIT 1 STDERR_LINES 1
            REGEX "aw-test/tiny_lm: no revision 'dev' in the Hub cache \\(.*/refs/dev does not exist\\); fetch it with: hf download aw-test/tiny_lm --revision dev\n"
            ARGS info --model aw-test/tiny_lm --revision dev)
foreach(test cli.info_hub_name cli.error_hub_name_missing cli.error_hub_revision_missing)
  set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT "HF_HUB_CACHE=${fixtures}/hub")
endforeach()
aw_cli_test(info_json EXIT 0 REGEX "\"model_type\": \"bet_sf\".*\"parameters\": [0-9]+" ARGS info --model ${fixtures}/tiny_bet_sf --json)
aw_cli_test(attend EXIT 0 REGEX "4 tokens:.*layer  1:" ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3 w4 w5")
# (A "[" would make CMake treat the following ";" as part of a bracketed list element, so "." stands for it.)
aw_cli_test(attend_json EXIT 0 REGEX "^\\{\"attention\":....1\\.0" ARGS attend --model ${fixtures}/tiny_bet_sf --text "w2 w3 w4" --json)
aw_cli_test(attend_out EXIT 0 REGEX "written to" OUT_FILE ${fixtures}/attend.json OUT_FILE_REGEX "^\\{\"attention\":"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3" --out ${fixtures}/attend.json)
aw_cli_test(eval EXIT 0 REGEX "perplexity [0-9.]+ \\(mean cross-entropy [0-9.]+ over 17 predicted tokens\\)"
            ARGS eval --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --batch 2)
aw_cli_test(eval_json EXIT 0 REGEX "\"perplexity\": [0-9.]+" ARGS eval --model ${fixtures}/tiny_bet_sf --text ${fixtures}/corpus.txt --json)
aw_cli_test(help EXIT 0 REGEX "usage: attention-cli" ARGS help)

# Bad input: one line on stderr, non-zero exit.
aw_cli_test(error_missing_model EXIT 1 STDERR_LINES 1 REGEX "error: /no/such/model: no such file or directory"
            ARGS info --model /no/such/model)
aw_cli_test(error_no_config EXIT 1 STDERR_LINES 1 REGEX "empty_folder: no config.json in this folder"
            ARGS info --model ${fixtures}/empty_folder)
aw_cli_test(error_text_too_long EXIT 1 STDERR_LINES 1
            REGEX "the text has 17 tokens but the model allows 16 positions \\(shorten it, or pass --truncate\\)"
            ARGS attend --model ${fixtures}/tiny_lm --text "a b c d e f g h i j k l m n o p q")
# Binary export: every layer to safetensors, one layer to .npy (their contents: tests/analysis/capture/test_attention_file_writer.cpp).
aw_cli_test(attend_safetensors EXIT 0 REGEX "layer  2:.*attention of 2 layers written to .*attend.safetensors"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3 w4" --out ${fixtures}/attend.safetensors --out-dtype f16)
aw_cli_test(attend_npy EXIT 0 REGEX "layer  2:.*attention of 1 layer written to .*attend.npy"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3 w4" --out ${fixtures}/attend.npy --layers 2)
aw_cli_test(error_attend_npy_layers EXIT 1 STDERR_LINES 1 REGEX "attend.npy: a .npy file holds one layer: choose it \\(--layers N\\)"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3" --out ${fixtures}/attend.npy)
aw_cli_test(error_attend_layer_range EXIT 1 STDERR_LINES 1 REGEX "attend: layers 1,3: '3' is not a layer from 1 to 2 or a range of them"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3" --out ${fixtures}/attend.safetensors --layers 1,3)
aw_cli_test(error_attend_head_range EXIT 1 STDERR_LINES 1 REGEX "attend: heads 2-4: '2-4' is not a head from 1 to 3 or a range of them"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3" --out ${fixtures}/attend.safetensors --heads 2-4)
aw_cli_test(attend_selected EXIT 0 REGEX "layer  2:.*attention of 1 layer written"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3 w4" --out ${fixtures}/attend_selected.safetensors --layers 2 --heads 1,3)
# Reading it back without the model (it is memory-mapped; the cases above write it first).
set_tests_properties(cli.attend_selected PROPERTIES FIXTURES_SETUP attention_file)
aw_cli_test(attend_from EXIT 0 REGEX "3 tokens of tiny_lm .heads: .1,3..: .w2. .w3. .w4.*layer  2:  w"
            ARGS attend --from ${fixtures}/attend_selected.safetensors)
aw_cli_test(error_attend_from_layer EXIT 1 STDERR_LINES 1 REGEX "attend_selected.safetensors holds no layer 1"
            ARGS attend --from ${fixtures}/attend_selected.safetensors --layers 1)
aw_cli_test(error_attend_from_model EXIT 1 STDERR_LINES 1 REGEX "--from reads a saved file; --model does not go with it"
            ARGS attend --from ${fixtures}/attend_selected.safetensors --model ${fixtures}/tiny_lm)
aw_cli_test(error_attend_from_weights EXIT 1 STDERR_LINES 1 REGEX "tiny_lm/model.safetensors: is not an attention file"
            ARGS attend --from ${fixtures}/tiny_lm/model.safetensors)
set_tests_properties(cli.attend_from cli.error_attend_from_layer cli.error_attend_from_model
                     PROPERTIES FIXTURES_REQUIRED "cli_models;attention_file")
# At any length (docs/long-context.md): a region, a pooled map, the budget, and their refusals.
aw_cli_test(attend_region EXIT 0 REGEX "attention of 2 layers written to .*attend_region.safetensors"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3 w4 w5 w6 w7" --out ${fixtures}/attend_region.safetensors
                 --rows 2-5 --cols 1-4 --memory-budget 1K)
aw_cli_test(attend_pool EXIT 0 REGEX "attention of 2 layers written to .*attend_pool.safetensors"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3 w4 w5 w6 w7" --out ${fixtures}/attend_pool.safetensors
                 --pool 4 --pool-max)
set_tests_properties(cli.attend_pool PROPERTIES FIXTURES_SETUP pooled_file)
aw_cli_test(attend_from_pool EXIT 0 REGEX "6 tokens of tiny_lm"
            ARGS attend --from ${fixtures}/attend_pool.safetensors)
set_tests_properties(cli.attend_from_pool PROPERTIES FIXTURES_REQUIRED pooled_file)
aw_cli_test(error_attend_rows_outside EXIT 1 STDERR_LINES 1 REGEX "attend: --rows 5-9 is outside the text's 3 tokens \\(1-3\\)"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3 w4" --out ${fixtures}/a.safetensors --rows 5-9)
aw_cli_test(error_attend_rows_text EXIT 1 STDERR_LINES 1 REGEX "attend: --rows 9-5: expected A-B, 1-based tokens with A ≤ B \\(e.g. 1-512\\)"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3 w4" --out ${fixtures}/a.safetensors --rows 9-5)
aw_cli_test(error_attend_pool_zero EXIT 1 STDERR_LINES 1 REGEX "attend: --pool 0: a block is at least 1 token wide"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3 w4" --out ${fixtures}/a.safetensors --pool 0)
aw_cli_test(error_attend_pool_large EXIT 1 STDERR_LINES 1 REGEX "attend: --pool 4 must be between 1 and the 3 tokens pooled"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3 w4" --out ${fixtures}/a.safetensors --pool 4)
aw_cli_test(error_attend_pool_json EXIT 1 STDERR_LINES 1 REGEX "--cols and --pool go with --out FILE.safetensors or FILE.npy"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3 w4" --pool 2)
aw_cli_test(error_memory_budget_small EXIT 1 STDERR_LINES 1
            REGEX "the memory budget of 10 B is too small for one row of attention \\(3 heads × 3 keys = 108 B\\): the smallest that works is --memory-budget 1K"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3 w4" --memory-budget 10)
aw_cli_test(error_attend_json_over_budget EXIT 1 STDERR_LINES 1
            REGEX "attention-cli attend: JSON keeps every layer's whole pattern: [0-9.]+ KiB at [0-9]+ tokens, over the memory budget of 2(\\.0)? KiB \\(--memory-budget\\); write it tile by tile with --out FILE.safetensors, or a region \\(--rows, --cols\\) or --pool K of it\n"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3 w4 w5 w6 w2 w3 w4 w5 w6 w2 w3 w4 w5 w6" --json
                 --memory-budget 2K)
aw_cli_test(error_memory_budget_text EXIT 1 STDERR_LINES 1 REGEX "--memory-budget: 'lots' is not a memory size"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3 w4" --memory-budget lots)
aw_cli_test(error_attend_unwritable EXIT 1 STDERR_LINES 1 REGEX "no_folder/a.safetensors: cannot write: No such file or directory"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3" --out ${fixtures}/no_folder/a.safetensors)
aw_cli_test(error_attend_out_dtype EXIT 1 STDERR_LINES 1 REGEX "--out-dtype bf16: expected f32 or f16"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3" --out ${fixtures}/attend.safetensors --out-dtype bf16)
aw_cli_test(error_attend_layer_without_binary EXIT 1 STDERR_LINES 1 REGEX "--layers, --heads, --out-dtype, --rows, --cols and --pool go with --out FILE.safetensors or FILE.npy"
            ARGS attend --model ${fixtures}/tiny_lm --text "w2 w3" --layers 1)
aw_cli_test(attend_truncate EXIT 0 REGEX "text truncated from 17 to 16 tokens"
            ARGS attend --model ${fixtures}/tiny_lm --text "a b c d e f g h i j k l m n o p q" --truncate)
aw_cli_test(error_empty_text EXIT 1 STDERR_LINES 1 REGEX "--text gives no tokens" ARGS attend --text "  " --model ${fixtures}/tiny_lm)
aw_cli_test(error_empty_corpus EXIT 1 STDERR_LINES 1 REGEX "empty.txt: holds no tokens"
            ARGS eval --model ${fixtures}/tiny_lm --text ${fixtures}/empty.txt)
aw_cli_test(error_missing_corpus EXIT 1 STDERR_LINES 1 REGEX "nothing.txt: cannot be read"
            ARGS eval --model ${fixtures}/tiny_lm --text ${fixtures}/nothing.txt)
aw_cli_test(error_window_too_large EXIT 1 STDERR_LINES 1 REGEX "--window 64 exceeds the model's 16 positions"
            ARGS eval --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 64)
aw_cli_test(error_unknown_option EXIT 1 STDERR_LINES 1 REGEX "unknown option --modle"
            ARGS info --modle ${fixtures}/tiny_lm)
aw_cli_test(error_missing_value EXIT 1 STDERR_LINES 1 REGEX "--model needs a value" ARGS info --model)
aw_cli_test(error_bad_device EXIT 1 STDERR_LINES 1 REGEX "--device tpu: expected auto, cpu, cuda or cuda:N"
            ARGS info --model ${fixtures}/tiny_lm --device tpu)
aw_cli_test(error_bad_integer EXIT 1 STDERR_LINES 1 REGEX "--window expects an integer, got 'ten'"
            ARGS eval --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window ten)
aw_cli_test(error_unknown_command EXIT 2 REGEX "unknown command 'explain'" ARGS explain)

# Training: a tiny run end to end, and its bad input.
aw_cli_test(train_tiny EXIT 0 REGEX "done: [0-9]+ steps, 1 epochs .*best valid perplexity [0-9.]+; saved to"
            ARGS train --arch bet_sf --train ${fixtures}/corpus.txt --valid ${fixtures}/corpus.txt --layers 1 --heads 2
                 --d-model 8 --d-ff 16 --window 8 --epochs 1 --batch 2 --f16 --out ${fixtures}/trained_bet_sf)
# A resumed run keeps the batch, schedule and seed its folder was trained with (training.json).
aw_cli_test(train_resume_keeps_settings EXIT 0 REGEX "done: 2 steps, 1 epochs.*step 4/4 +epoch 2"
            OUT_FILE ${fixtures}/resumed_bet_sf/training.json OUT_FILE_REGEX "\"batch\": 2,.*\"epochs\": 2,"
            ARGS train --resume ${fixtures}/trained_bet_sf --train ${fixtures}/corpus.txt --valid ${fixtures}/corpus.txt
                 --epochs 2 --out ${fixtures}/resumed_bet_sf)
set_tests_properties(cli.train_resume_keeps_settings PROPERTIES DEPENDS cli.train_tiny)
# …and saves in the dtype it was trained to save in (--f16 then, no flag now).
aw_cli_test(train_resume_keeps_storage EXIT 0 REGEX "stored as F16" ARGS info --model ${fixtures}/resumed_bet_sf)
set_tests_properties(cli.train_resume_keeps_storage PROPERTIES DEPENDS cli.train_resume_keeps_settings)
# Analyses.
aw_cli_test(stats_two_models EXIT 0
            REGEX "# include_first_row=false, significance=no intervals: 2 paragraphs are fewer than the 20 independent units the bootstrap needs \\(--min-units\\).model,layer,CA,HA_mean,HA_std,Ratio,uniform_CA,uniform_HA_mean,uniform_HA_std,uniform_Ratio,Ratio_over_uniform,CA_x_keys,HA_x_keys_mean,HA_x_keys_std.tiny_lm,1,[0-9.e-]+(,[0-9.e-]+)+.tiny_lm,2,.*tiny_bet_sf,2,0,[0-9.e-]+,[0-9.e-]+,0"
            ARGS stats --model ${fixtures}/tiny_lm --model ${fixtures}/tiny_bet_sf --text ${fixtures}/corpus.txt --window 8 --no-first-row)
aw_cli_test(stats_per_head_out EXIT 0 REGEX "written to" OUT_FILE ${fixtures}/stats.csv
            OUT_FILE_REGEX "^# include_first_row=true.model,layer,head,CA,HA_mean,HA_std,Ratio,uniform_CA,"
            ARGS stats --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --per-head --bootstrap 0 --out ${fixtures}/stats.csv)
aw_cli_test(error_stats_window EXIT 1 STDERR_LINES 1 REGEX "attention-cli stats: --window 99 exceeds the model's 16 positions"
            ARGS stats --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 99)
aw_cli_test(diag_sweep EXIT 0 REGEX "# model=tiny_lm, metric=perplexity, baseline=([0-9.]+), bootstrap=1000, seed=1, correction=holm, unit=paragraphs, units=[0-9]+, min_units=2\nfactor,metric,delta,delta_low,delta_high,p_value,p_adjusted,significant\n0,[0-9.]+,[-0-9.e]+,[^\n]+\n1,[0-9.]+,0,0,0,1,1,0\nmask,[0-9.]+,"
            ARGS diag-sweep --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --factors 0,1,mask --min-units 2)
aw_cli_test(error_diag_sweep_factor EXIT 1 STDERR_LINES 1 REGEX "--factors: 'big' is neither a number ≥ 0 nor 'mask'"
            ARGS diag-sweep --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --factors 0,big)
aw_cli_test(top_tokens EXIT 0 REGEX "layer,sentence,target,method,top1,top2,top3.1,1,w5@3,tiny_lm,w[0-9]+,w[0-9]+,w[0-9]+.1,1,w5@3,tiny_bet_sf,"
            ARGS top-tokens --model ${fixtures}/tiny_lm --model ${fixtures}/tiny_bet_sf --text "w2 w3 w4 w5 w6" --target 3)
aw_cli_test(error_top_tokens_target EXIT 1 STDERR_LINES 1 REGEX "sentence 1: target 9 is outside 1..4"
            ARGS top-tokens --model ${fixtures}/tiny_lm --text "w2 w3 w4 w5 w6" --target 9)
aw_cli_test(ablate_single EXIT 0 REGEX "# model=tiny_lm, metric=perplexity, baseline=[0-9.]+, mode=single, bootstrap=1000, seed=1, correction=holm, unit=paragraphs, units=[0-9]+, min_units=2\nlayer,head,metric,delta,delta_low,delta_high,p_value,p_adjusted,significant\n1,1,[0-9.]+,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+,[0-9.e-]+,[01]\n1,2,.*2,3,"
            ARGS ablate --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --min-units 2)
aw_cli_test(ablate_all_but_one EXIT 0 REGEX "mode=all-but-one.layer,best_head,metric,delta.1,[1-3],[0-9.]+,[0-9.e-]+.2,[1-3],"
            ARGS ablate --model ${fixtures}/tiny_bet_sf --text ${fixtures}/corpus.txt --mode all-but-one --bootstrap 0)
# Head gates as a setting (--heads-off): recorded in the CSV, checked against the model, one group per --model.
# (A ';' in a regex here would split it: CMake lists; '.' stands for it.)
aw_cli_test(ablate_heads_off EXIT 0 REGEX "^# model=tiny_lm, metric=perplexity, baseline=[0-9.]+, mode=single, heads_off=1.2,2.3\nlayer,head,metric,delta\n1,1,"
            ARGS ablate --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --bootstrap 0 --heads-off 1.2,2.3)
aw_cli_test(stats_heads_off_per_model EXIT 0 REGEX "^# include_first_row=true, heads_off=none.2.1\nmodel,layer,"
            ARGS stats --model ${fixtures}/tiny_lm --model ${fixtures}/tiny_bet_sf --text ${fixtures}/corpus.txt --window 8
                 --heads-off none --heads-off 2.1 --bootstrap 0)
aw_cli_test(error_heads_off_layer EXIT 1 STDERR_LINES 1 REGEX "attention-cli ablate: --heads-off 3.1: tiny_lm has 2 layers\n"
            ARGS ablate --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --heads-off 3.1)
aw_cli_test(error_heads_off_head EXIT 1 STDERR_LINES 1 REGEX "attention-cli importance: --heads-off 2.4: layer 2 of tiny_lm has 3 heads\n"
            ARGS importance --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --heads-off 2.4)
aw_cli_test(error_heads_off_syntax EXIT 1 STDERR_LINES 1 REGEX "attention-cli eval: --heads-off expects LAYER.HEAD entries counted from 1 .*got '1-2'\n"
            ARGS eval --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --heads-off 1-2)
aw_cli_test(error_heads_off_groups EXIT 1 STDERR_LINES 1 REGEX "attention-cli stats: --heads-off has 1 group for 2 models: give one per --model, separated by '.' \\(none: every head on\\)\n"
            ARGS stats --model ${fixtures}/tiny_lm --model ${fixtures}/tiny_bet_sf --text ${fixtures}/corpus.txt --heads-off 1.1)
aw_cli_test(error_heads_off_kind EXIT 1 STDERR_LINES 1 REGEX "attention-cli ablate: --heads-off enc1.1: tiny_lm has one kind of attention: write 1.1\n"
            ARGS ablate --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --heads-off enc1.1)
aw_cli_test(error_prune_heads_off EXIT 1 STDERR_LINES 1 REGEX "attention-cli prune: unknown option --heads-off"
            ARGS prune --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --heads-off 1.1)
aw_cli_test(error_ablate_mode EXIT 1 STDERR_LINES 1 REGEX "--mode must be single or all-but-one, got 'double'"
            ARGS ablate --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --mode double)
aw_cli_test(error_ablate_all_in_single_mode EXIT 1 STDERR_LINES 1
            REGEX "attention-cli ablate: --all gives every lone head's row; it needs --mode all-but-one\n"
            ARGS ablate --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --all)
aw_cli_test(error_ablate_correction EXIT 1 STDERR_LINES 1 REGEX "--correction must be holm or bh, got 'bonferroni'"
            ARGS ablate --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --correction bonferroni)
aw_cli_test(error_prune_bootstrap_negative EXIT 1 STDERR_LINES 1 REGEX "--bootstrap must be at least 0, got -5"
            ARGS prune --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --bootstrap -5)
aw_cli_test(error_ablate_min_units_one EXIT 1 STDERR_LINES 1 REGEX "--min-units must be at least 2, got 1"
            ARGS ablate --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --min-units 1)
aw_cli_test(importance EXIT 0 REGEX "# model=tiny_lm, normalized=true.layer,head,importance.1,1,[0-9.e-]+.1,2,.*2,3,"
            ARGS importance --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8)
aw_cli_test(importance_per_example EXIT 0 REGEX "# model=tiny_lm, normalized=true, per_example=true\nlayer,head,importance\n1,1,[0-9.e-]+\n"
            ARGS importance --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --per-example)
aw_cli_test(prune_both EXIT 0 REGEX ", bootstrap=1000, seed=1, correction=holm, unit=paragraphs, units=[0-9]+, min_units=2\norder,percent_pruned,heads_pruned,metric,delta,delta_low,delta_high,p_value,p_adjusted,significant\nimportance,0,0,[0-9.]+,0,0,0,1,1,0\nimportance,50,3,[0-9.]+,[^\n]+\nimportance,100,6,[0-9.]+,[^\n]+\noracle,0,0,"
            ARGS prune --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --step 50 --min-units 2)
aw_cli_test(error_prune_order EXIT 1 STDERR_LINES 1 REGEX "--order must be importance, oracle or both, got 'random'"
            ARGS prune --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --order random)

# Every analysis on the shipped sample models and demo sentences: the CSV header and the row count
# (one row per layer, or per layer and head, of the model as its config.json gives it; 6 demo
# sentences), so the tests follow the samples when they are retrained at another size.
set(samples ${PROJECT_SOURCE_DIR}/sample_data)
set(demo ${samples}/demo_sentences.txt)
foreach(sample vanilla_lm bet_sf bet_sg)
  file(READ ${samples}/${sample}/config.json sample_config)
  # A retrained sample (scripts/study/train-models.sh ship) re-runs this configure step.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${samples}/${sample}/config.json)
  string(JSON ${sample}_layers GET "${sample_config}" n_layers)
  string(JSON ${sample}_heads GET "${sample_config}" n_heads)
  math(EXPR ${sample}_cells "${${sample}_layers} * ${${sample}_heads}")
endforeach()
math(EXPR stats_lines "${vanilla_lm_layers} + ${bet_sf_layers} + 2")          # comment, header, a row per layer
math(EXPR top_tokens_lines "6 * (${vanilla_lm_layers} + ${bet_sf_layers}) + 1")  # a row per sentence, layer and model
math(EXPR vanilla_cells_lines "${vanilla_lm_cells} + 2")
math(EXPR bet_sf_cells_lines "${bet_sf_cells} + 2")
math(EXPR bet_sg_layers_lines "${bet_sg_layers} + 2")
math(EXPR bet_sf_half "${bet_sf_cells} / 2")
aw_cli_test(samples_stats EXIT 0 STDOUT_LINES ${stats_lines} REGEX "^# include_first_row=true, significance=no intervals: [0-9]+ paragraphs? (is|are) fewer than the 20 independent units the bootstrap needs \\(--min-units\\)\nmodel,layer,CA,HA_mean,HA_std,Ratio,uniform_CA,uniform_HA_mean,uniform_HA_std,uniform_Ratio,Ratio_over_uniform,CA_x_keys,HA_x_keys_mean,HA_x_keys_std\nvanilla_lm,1,"
            ARGS stats --model ${samples}/vanilla_lm --model ${samples}/bet_sf --text ${demo} --window 64)
aw_cli_test(samples_top_tokens EXIT 0 STDOUT_LINES ${top_tokens_lines} REGEX "^layer,sentence,target,method,top1,top2,top3\n1,1,\\.@18,vanilla_lm,"
            ARGS top-tokens --model ${samples}/vanilla_lm --model ${samples}/bet_sf --sentences ${demo})
aw_cli_test(samples_diag_sweep EXIT 0 STDOUT_LINES 5 REGEX "^# model=bet_sf, metric=perplexity, baseline=[0-9.]+, significance=no intervals or p-values: [0-9]+ paragraphs? (is|are) fewer than the 20 independent units the bootstrap needs \\(--min-units\\)\nfactor,metric,delta\n0,"
            ARGS diag-sweep --model ${samples}/bet_sf --text ${demo} --factors 0,1,mask --window 64)
aw_cli_test(samples_ablate EXIT 0 STDOUT_LINES ${vanilla_cells_lines} REGEX "^# model=vanilla_lm, metric=perplexity, baseline=[0-9.]+, mode=single, significance=no intervals or p-values: [0-9]+ paragraphs? (is|are) fewer than the 20 independent units the bootstrap needs \\(--min-units\\)\nlayer,head,metric,delta\n1,1,"
            ARGS ablate --model ${samples}/vanilla_lm --text ${demo} --window 64)
aw_cli_test(samples_ablate_all_but_one EXIT 0 STDOUT_LINES ${bet_sg_layers_lines} REGEX "mode=all-but-one, significance=no intervals or p-values: [0-9]+ paragraphs? (is|are) fewer than the 20 independent units the bootstrap needs \\(--min-units\\)\nlayer,best_head,metric,delta\n1,[0-9]+,"
            ARGS ablate --model ${samples}/bet_sg --text ${demo} --window 64 --mode all-but-one)
aw_cli_test(samples_ablate_compare EXIT 0 STDOUT_LINES ${vanilla_cells_lines} REGEX "compare_text=[^\n]*/README.md, compare_baseline=[0-9.]+, pearson_r=[-0-9.e]+, spearman_rho=[-0-9.e]+\nlayer,head,metric,delta,metric_compared,delta_compared\n1,1,"
            ARGS ablate --model ${samples}/vanilla_lm --text ${demo} --compare-text ${samples}/README.md --window 16 --bootstrap 0)
aw_cli_test(samples_importance EXIT 0 STDOUT_LINES ${bet_sf_cells_lines} REGEX "^# model=bet_sf, normalized=true\nlayer,head,importance\n1,1,"
            ARGS importance --model ${samples}/bet_sf --text ${demo} --window 64)
aw_cli_test(samples_prune EXIT 0 STDOUT_LINES 8 REGEX "^# model=vanilla_lm, metric=perplexity, significance=no intervals or p-values: [0-9]+ paragraphs? (is|are) fewer than the 20 independent units the bootstrap needs \\(--min-units\\)\norder,percent_pruned,heads_pruned,metric,delta\nimportance,0,0,"
            ARGS prune --model ${samples}/vanilla_lm --text ${demo} --window 64 --step 50)
aw_cli_test(samples_prune_order_from EXIT 0 REGEX "^# model=bet_sf, metric=perplexity, ranked_on=[^\n]*/tests/golden/importance.importance.csv, significance=no intervals or p-values: [0-9]+ paragraphs? (is|are) fewer than the 20 independent units the bootstrap needs \\(--min-units\\)\norder,percent_pruned,[^\n]*\nimportance,0,0,[^\n]*\nimportance,50,${bet_sf_half},[^\n]*\nimportance,100,${bet_sf_cells},"
            ARGS prune --model ${samples}/bet_sf --text ${demo} --window 16 --step 50
                 --order-from ${PROJECT_SOURCE_DIR}/tests/golden/importance.importance.csv)
aw_cli_test(samples_prune_rank_text EXIT 0 REGEX "^# model=vanilla_lm, metric=perplexity, ranked_on=[^\n]*/demo_sentences.txt\norder,percent_pruned,heads_pruned,metric,delta\noracle,0,0,"
            ARGS prune --model ${samples}/vanilla_lm --text ${samples}/README.md
                 --rank-text ${demo} --order oracle --window 16 --step 50 --bootstrap 0)
aw_cli_test(error_prune_order_from_stats EXIT 1 STDERR_LINES 1 REGEX "/stats.csv: has neither an importance nor a delta column \\(expected a CSV from importance or ablate --mode single\\)\n"
            ARGS prune --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --order-from ${fixtures}/stats.csv)
# It reads the stats CSV cli.stats_per_head_out writes (run first: ctest's order is not the file's order).
set_tests_properties(cli.stats_per_head_out PROPERTIES FIXTURES_SETUP stats_file)
set_tests_properties(cli.error_prune_order_from_stats PROPERTIES FIXTURES_REQUIRED "cli_models;stats_file")
aw_cli_test(error_prune_order_from_with_order EXIT 1 STDERR_LINES 1 REGEX "--order comes from --order-from's file \\(importance or ablation\\); leave --order out"
            ARGS prune --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --order-from ${fixtures}/stats.csv --order oracle)
aw_cli_test(prune_apply EXIT 0 REGEX "pruned 3 of 6 heads \\(importance order\\): [0-9]+ → [0-9]+ parameters. perplexity [0-9.]+ \\(gated model [0-9.]+\\). saved to"
            ARGS prune --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --apply 50 --save ${fixtures}/pruned_lm)
aw_cli_test(error_prune_apply_without_save EXIT 1 STDERR_LINES 1 REGEX "--apply P and --save DIR go together"
            ARGS prune --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --apply 50)

# Which models and data each command takes (docs/analyses.md): classifiers run the metric-based
# analyses on labelled examples; the Bird-Eye commands need a causal language model; anything else
# is refused with one line naming the checkpoint or file. (A ";" would split the REGEX argument,
# so "." stands for it.)
aw_cli_test(classifier_eval EXIT 0 REGEX "accuracy [0-9.]+ \\(mean cross-entropy [0-9.]+ over 3 examples\\)"
            ARGS eval --model ${fixtures}/tiny_bert_classifier --text ${fixtures}/labelled.tsv)
aw_cli_test(classifier_ablate EXIT 0 REGEX "# model=tiny_bert_classifier, metric=accuracy, baseline=[0-9.]+, mode=single, bootstrap=1000, seed=1, correction=holm, unit=examples, units=[0-9]+, min_units=2\nlayer,head,metric,delta,delta_low,delta_high,p_value,p_adjusted,significant\n1,1,.*2,2,"
            ARGS ablate --model ${fixtures}/tiny_bert_classifier --text ${fixtures}/labelled.tsv --min-units 2)
aw_cli_test(classifier_importance EXIT 0 REGEX "# model=tiny_bert_classifier, normalized=true.layer,head,importance.1,1,.*2,2,"
            ARGS importance --model ${fixtures}/tiny_bert_classifier --text ${fixtures}/labelled.tsv)
aw_cli_test(error_classifier_top_tokens EXIT 1 STDERR_LINES 1
            REGEX "error: .*/tiny_bert_classifier: top-tokens needs a causal language model or a translation model. this checkpoint is a bert classifier\n"
            ARGS top-tokens --model ${fixtures}/tiny_bert_classifier --text "the film was good")
aw_cli_test(error_classifier_stats EXIT 1 STDERR_LINES 1
            REGEX "/tiny_bert_classifier: stats needs a causal language model or a translation model. this checkpoint is a bert classifier\n"
            ARGS stats --model ${fixtures}/tiny_lm --model ${fixtures}/tiny_bert_classifier --text ${fixtures}/corpus.txt)
aw_cli_test(error_classifier_diag_sweep EXIT 1 STDERR_LINES 1
            REGEX "/tiny_bert_classifier: diag-sweep needs a causal language model or a translation model. this checkpoint is a bert classifier\n"
            ARGS diag-sweep --model ${fixtures}/tiny_bert_classifier --text ${fixtures}/labelled.tsv)
aw_cli_test(error_encoder_stats EXIT 1 STDERR_LINES 1
            REGEX "/tiny_bert_encoder: stats needs a causal language model or a translation model. this checkpoint is a bert encoder without a classification head\n"
            ARGS stats --model ${fixtures}/tiny_bert_encoder --text ${fixtures}/corpus.txt)
aw_cli_test(error_encoder_ablate EXIT 1 STDERR_LINES 1
            REGEX "/tiny_bert_encoder: ablate needs a language model, a classifier or a translation model. this checkpoint is a bert encoder without a classification head\n"
            ARGS ablate --model ${fixtures}/tiny_bert_encoder --text ${fixtures}/corpus.txt)
aw_cli_test(error_encoder_eval EXIT 1 STDERR_LINES 1
            REGEX "/tiny_bert_encoder: eval needs a language model, a classifier or a translation model. this checkpoint is a bert encoder without a classification head\n"
            ARGS eval --model ${fixtures}/tiny_bert_encoder --text ${fixtures}/corpus.txt)
aw_cli_test(error_language_model_labelled_data EXIT 1 STDERR_LINES 1
            REGEX "/labelled.tsv: holds label<TAB>text lines \\(a classifier's examples\\), but tiny_lm is a language model: importance needs plain text\n"
            ARGS importance --model ${fixtures}/tiny_lm --text ${fixtures}/labelled.tsv)
aw_cli_test(error_language_model_labelled_data_eval EXIT 1 STDERR_LINES 1
            REGEX "/labelled.tsv: holds label<TAB>text lines \\(a classifier's examples\\), but tiny_bet_sf is a language model: eval needs plain text\n"
            ARGS eval --model ${fixtures}/tiny_bet_sf --text ${fixtures}/labelled.tsv)
aw_cli_test(error_classifier_plain_text EXIT 1 STDERR_LINES 1 REGEX "/corpus.txt: line 1: expected label<TAB>text\n"
            ARGS prune --model ${fixtures}/tiny_bert_classifier --text ${fixtures}/corpus.txt)
aw_cli_test(error_classifier_window EXIT 1 STDERR_LINES 1
            REGEX "attention-cli ablate: --window applies to language models. tiny_bert_classifier is a bert classifier and reads each example whole \\(up to its 16 positions\\)\n"
            ARGS ablate --model ${fixtures}/tiny_bert_classifier --text ${fixtures}/labelled.tsv --window 8)

# The other bad input of the analyses: empty text, a window or sentence beyond the model's
# positions, a target out of range.
aw_cli_test(error_ablate_empty_text EXIT 1 STDERR_LINES 1 REGEX "/empty.txt: holds no tokens \\(empty text\\)\n"
            ARGS ablate --model ${fixtures}/tiny_lm --text ${fixtures}/empty.txt)
aw_cli_test(error_top_tokens_empty_text EXIT 1 STDERR_LINES 1 REGEX "/empty.txt: holds no sentences\n"
            ARGS top-tokens --model ${fixtures}/tiny_lm --sentences ${fixtures}/empty.txt)
aw_cli_test(error_top_tokens_one_token EXIT 1 STDERR_LINES 1 REGEX "error: sentence 1 gives 1 token\\(s\\). a target needs at least 2\n"
            ARGS top-tokens --model ${fixtures}/tiny_lm --text "w2")
aw_cli_test(error_importance_window EXIT 1 STDERR_LINES 1 REGEX "attention-cli importance: --window 17 exceeds the model's 16 positions\n"
            ARGS importance --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 17)
aw_cli_test(error_top_tokens_sentence_too_long EXIT 1 STDERR_LINES 1 REGEX "error: sentence 1 has 17 tokens but tiny_lm allows 16\n"
            ARGS top-tokens --model ${fixtures}/tiny_lm --text "a b c d e f g h i j k l m n o p q")
aw_cli_test(error_top_tokens_target_zero EXIT 1 STDERR_LINES 1 REGEX "attention-cli top-tokens: --target must be at least 1, got 0\n"
            ARGS top-tokens --model ${fixtures}/tiny_lm --text "w2 w3 w4" --target 0)

# help is generated from the analysis descriptors (analysis/core/registry.h).
aw_cli_test(help_lists_analyses EXIT 0 REGEX "eval --model DIR --text FILE.*stats --model DIR .--model DIR2 ….*top-tokens.*diag-sweep.*ablate.*importance.*prune.*word-weights --model DIR --data FILE --words a,b,c.*keywords"
            ARGS help)
aw_cli_test(help_command EXIT 0 REGEX "usage: attention-cli prune --model DIR --text FILE .options.*--step P +percent of the heads switched off per step \\(default 10\\).*--order importance\\|oracle\\|both"
            ARGS help prune)
aw_cli_test(error_analysis_two_models EXIT 1 STDERR_LINES 1 REGEX "error: ablate takes one model, got 2\n"
            ARGS ablate --model ${fixtures}/tiny_lm --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt)
aw_cli_test(error_step_too_large EXIT 1 STDERR_LINES 1 REGEX "attention-cli prune: --step must be at most 100, got 101\n"
            ARGS prune --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --step 101)

# split --group-by source on our own English–French pairs (tests/fixtures/pairs_en_fr.tsv: 10 sources,
# two translations each, the two not on adjacent lines): 8 / 1 / 1 sources are 16 / 2 / 2 lines, and
# the valid part is one source's two lines.
set(pairs ${PROJECT_SOURCE_DIR}/tests/fixtures/pairs_en_fr.tsv)
aw_cli_test(split_group_by_source EXIT 0
            REGEX "split .*pairs_en_fr.tsv \\(seed 5, grouped by source\\): 16 train, 2 valid, 2 test lines"
            OUT_FILE ${fixtures}/split_pairs/valid.tsv OUT_FILE_REGEX "^([^\t\n]+)\t[^\t\n]+\n[^\t\n]+\t[^\t\n]+\n$"
            ARGS split --data ${pairs} --out ${fixtures}/split_pairs --seed 5 --group-by source)
aw_cli_test(error_split_group_by EXIT 1 STDERR_LINES 1 REGEX "attention-cli split: --group-by must be line or source, got 'target'"
            ARGS split --data ${pairs} --out ${fixtures}/never --group-by target)
aw_cli_test(error_split_pairs_no_tab EXIT 1 STDERR_LINES 1 REGEX "error: .*corpus.txt: line 1: no TAB between source and translation"
            ARGS split --data ${fixtures}/corpus.txt --out ${fixtures}/never --group-by source)

# Translation models: Hugging Face's own tiny Marian and BART (tests/fixtures/hf, made by
# scripts/fixtures/make_hf_fixtures.py); the beam output is the one transformers' generate() gave.
set(hf_fixtures ${PROJECT_SOURCE_DIR}/tests/fixtures/hf)
aw_cli_test(translate_marian EXIT 0 REGEX "^ther ne do\\.\n.*ended with EOS, beam 3.*▁ne → "
            ARGS translate --model ${hf_fixtures}/marian_tiny --text "I am hungry." --beam 3 --max-length 12)
aw_cli_test(translate_out EXIT 0 REGEX "attention of 6 blocks" OUT_FILE ${fixtures}/translate.json
            OUT_FILE_REGEX "^\\{\"blocks\":.\\{\"attention\":"
            ARGS translate --model ${hf_fixtures}/marian_tiny --text "Where is the station?" --beam 1 --max-length 4
                 --out ${fixtures}/translate.json)
# Binary: the chosen kinds' blocks, named <kind>.<layer>; read back without the model.
aw_cli_test(translate_safetensors EXIT 0 REGEX "attention of 2 blocks .cross. written to .*translate.safetensors"
            ARGS translate --model ${hf_fixtures}/marian_tiny --text "I am hungry." --out ${fixtures}/translate.safetensors
                 --kinds cross --out-dtype f16)
set_tests_properties(cli.translate_safetensors PROPERTIES FIXTURES_SETUP translation_file)
aw_cli_test(attend_from_translation EXIT 0 REGEX "translation: .*cross  1: .*cross  2: "
            ARGS attend --from ${fixtures}/translate.safetensors)
set_tests_properties(cli.attend_from_translation PROPERTIES FIXTURES_REQUIRED "cli_models;translation_file")
aw_cli_test(error_translate_kinds EXIT 1 STDERR_LINES 1 REGEX "--kinds crossy: 'crossy' is not enc, dec or cross"
            ARGS translate --model ${hf_fixtures}/marian_tiny --text "hi" --out ${fixtures}/t.safetensors --kinds crossy)
aw_cli_test(error_translate_kinds_json EXIT 1 STDERR_LINES 1 REGEX "--kinds and --out-dtype go with --out FILE.safetensors"
            ARGS translate --model ${hf_fixtures}/marian_tiny --text "hi" --kinds enc)
aw_cli_test(translate_json EXIT 0 REGEX "^\\{.*\"translation\":\"ther ne do\\.\""
            ARGS translate --model ${hf_fixtures}/marian_tiny --text "I am hungry." --beam 3 --max-length 12 --json)
aw_cli_test(error_translate_empty EXIT 1 STDERR_LINES 1 REGEX "the source is empty"
            ARGS translate --text "   " --model ${hf_fixtures}/marian_tiny)
aw_cli_test(error_translate_lm EXIT 1 STDERR_LINES 1 REGEX "tiny_lm is a transformer_lm model, not a translation model"
            ARGS translate --model ${fixtures}/tiny_lm --text "w2 w3")
aw_cli_test(error_attend_translation EXIT 1 STDERR_LINES 1 REGEX "marian_tiny is a marian translation model; use attention-cli translate"
            ARGS attend --model ${hf_fixtures}/marian_tiny --text "hi")
aw_cli_test(error_translate_too_long EXIT 1 STDERR_LINES 1 REGEX "the source has [0-9]+ tokens; the model has 64 positions"
            ARGS translate --model ${hf_fixtures}/marian_tiny
                 --text "a very long sentence that goes on and on and on and never stops because it has too many tokens for this tiny model")
aw_cli_test(error_translate_beam EXIT 1 STDERR_LINES 1 REGEX "--beam must be at least 1, got 0"
            ARGS translate --model ${hf_fixtures}/marian_tiny --text "hi" --beam 0)

# Translation models in the analyses (issue 12): teacher-forced perplexity and BLEU, heads by kind.
set(pairs ${PROJECT_SOURCE_DIR}/tests/fixtures/pairs_en_fr.tsv)
aw_cli_test(eval_translation EXIT 0
            REGEX "perplexity [0-9.]+ \\(mean cross-entropy [0-9.]+ over [0-9]+ reference tokens, teacher-forced\\)\nBLEU [0-9.]+  chrF [0-9.]+  \\(20 sentences, beam 2; nrefs:1.case:mixed.eff:no.tok:13a.smooth:exp.version:aw\\)"
            ARGS eval --model ${hf_fixtures}/marian_tiny --text ${pairs} --beam 2)
aw_cli_test(ablate_translation_cross EXIT 0 REGEX "# model=marian_tiny, metric=perplexity.*\nkind,layer,head,metric,delta,delta_low,delta_high,p_value,p_adjusted,significant\ncross,1,1,.*\ncross,2,2,"
            ARGS ablate --model ${hf_fixtures}/marian_tiny --text ${pairs} --attention cross)
aw_cli_test(importance_translation EXIT 0 REGEX "kind,layer,head,importance\nenc,1,1,.*\ndec,2,2,.*\ncross,2,2,"
            ARGS importance --model ${hf_fixtures}/marian_tiny --text ${pairs})
aw_cli_test(prune_translation_dec EXIT 0 REGEX "# model=marian_tiny, metric=perplexity, attention=dec, bootstrap=1000, seed=1, correction=holm, unit=sentence pairs, units=[0-9]+, min_units=20\norder,percent_pruned,heads_pruned,metric,delta,delta_low,delta_high,p_value,p_adjusted,significant\nimportance,0,0,"
            ARGS prune --model ${hf_fixtures}/marian_tiny --text ${pairs} --attention dec --step 50 --order importance)
aw_cli_test(train_translation EXIT 0 REGEX "done: 5 steps, 1 epochs .*best valid perplexity [0-9.]+; saved to.*training a 60-piece SentencePiece bpe model on 40 sentences"
            ARGS train --arch transformer_mt --train ${pairs} --valid ${pairs} --vocab-size 60 --spm-type bpe --layers 1
                 --heads 2 --d-model 8 --d-ff 16 --epochs 1 --batch 4 --out ${fixtures}/trained_mt)
aw_cli_test(stats_translation EXIT 0 REGEX "# include_first_row=true, bootstrap=1000, seed=1, unit=sentence pairs, units=20, min_units=20\nmodel,kind,layer,CA,HA_mean,HA_std,Ratio,uniform_CA,uniform_HA_mean,uniform_HA_std,uniform_Ratio,Ratio_over_uniform,CA_x_keys,HA_x_keys_mean,HA_x_keys_std,CA_low,CA_high,HA_mean_low,HA_mean_high,Ratio_low,Ratio_high,Ratio_over_uniform_low,Ratio_over_uniform_high\nmarian_tiny,enc,1,.*\nmarian_tiny,enc,2,.*\nmarian_tiny,dec,1,.*\nmarian_tiny,dec,2,"
            ARGS stats --model ${hf_fixtures}/marian_tiny --text ${pairs})
aw_cli_test(stats_translation_decoder EXIT 0 REGEX "model,kind,layer,CA,HA_mean,HA_std,Ratio,uniform_CA,uniform_HA_mean,uniform_HA_std,uniform_Ratio,Ratio_over_uniform,CA_x_keys,HA_x_keys_mean,HA_x_keys_std,CA_low,CA_high,HA_mean_low,HA_mean_high,Ratio_low,Ratio_high,Ratio_over_uniform_low,Ratio_over_uniform_high\nmarian_tiny,dec,1,.*\nmarian_tiny,dec,2,"
            ARGS stats --model ${hf_fixtures}/marian_tiny --text ${pairs} --attention dec)
aw_cli_test(error_stats_translation_cross EXIT 1 STDERR_LINES 1 REGEX "--attention cross: CA and HA are measured on self-attention"
            ARGS stats --model ${hf_fixtures}/marian_tiny --text ${pairs} --attention cross)
aw_cli_test(top_tokens_translation EXIT 0 REGEX "layer,sentence,target,method,top1,top2\n1,1,[^,]+@1,marian_tiny,"
            ARGS top-tokens --model ${hf_fixtures}/marian_tiny --text "the cat" --k 2 --beam 1)
aw_cli_test(error_top_tokens_mixed_kinds EXIT 1 STDERR_LINES 1 REGEX "top-tokens compares models of one kind: marian_tiny is a marian translation model, tiny_lm is a transformer_lm language model"
            ARGS top-tokens --model ${hf_fixtures}/marian_tiny --model ${fixtures}/tiny_lm --text "w2 w3")
aw_cli_test(ablate_translation_bleu EXIT 0 REGEX "# model=marian_tiny, metric=bleu, baseline=[0-9.e-]+, mode=single, bootstrap=50, seed=2, correction=bh, unit=sentences, units=[0-9]+, min_units=2\nkind,layer,head,metric,delta,delta_low,delta_high,p_value,p_adjusted,significant\ndec,1,1,[^\n]+,[01]\n"
            ARGS ablate --model ${hf_fixtures}/marian_tiny --text ${pairs} --attention dec --metric bleu --beam 1
                 --bootstrap 50 --bootstrap-seed 2 --correction bh --min-units 2)
aw_cli_test(diag_sweep_translation EXIT 0 REGEX "# model=marian_tiny, metric=perplexity, baseline=[0-9.e+]+\nfactor,metric,delta\n0,[0-9.e+]+,[-0-9.e+]+\nmask,"
            ARGS diag-sweep --model ${hf_fixtures}/marian_tiny --text ${pairs} --factors 0,mask --bootstrap 0)
aw_cli_test(error_metric_bleu_on_lm EXIT 1 STDERR_LINES 1 REGEX "--metric bleu applies to translation models; tiny_lm is a transformer_lm language model"
            ARGS prune --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --metric bleu)
aw_cli_test(error_ablate_cross_on_lm EXIT 1 STDERR_LINES 1 REGEX "ablate: --attention cross: tiny_lm has no cross attention \\(a transformer_lm model has dec attention only\\)"
            ARGS ablate --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --attention cross)
aw_cli_test(error_eval_beam_on_lm EXIT 1 STDERR_LINES 1 REGEX "--beam applies to translation models; tiny_lm is a transformer_lm language model"
            ARGS eval --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --beam 2)
aw_cli_test(error_eval_translations_of_lm EXIT 1 STDERR_LINES 1 REGEX "eval: --translations has nothing to write for tiny_lm"
            ARGS eval --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --translations ${fixtures}/never.txt)
aw_cli_test(error_window_translation EXIT 1 STDERR_LINES 1 REGEX "--window applies to language models; marian_tiny is a marian translation model and reads each pair whole"
            ARGS ablate --model ${hf_fixtures}/marian_tiny --text ${pairs} --window 8)
aw_cli_test(error_train_translation_no_tab EXIT 1 STDERR_LINES 1 REGEX "corpus.txt: line 1 has no TAB \\(expected source<TAB>target\\)"
            ARGS train --arch transformer_mt --train ${fixtures}/corpus.txt --valid ${pairs} --out ${fixtures}/never)
aw_cli_test(error_train_translation_smoothing EXIT 1 STDERR_LINES 1 REGEX "--label-smoothing must be in .0, 1., got 1.5"
            ARGS train --arch transformer_mt --train ${pairs} --valid ${pairs} --label-smoothing 1.5 --out ${fixtures}/never)

# AW_DEVICE is --device's default (a suite pointed at CUDA with AW_DEVICE=cuda); --device wins over it.
foreach(case "bogus;--device bogus: expected auto, cpu, cuda or cuda:N;1" "cpu;architecture transformer_lm;0")
  list(GET case 0 value)
  list(GET case 1 regex)
  list(GET case 2 code)
  string(JOIN "^^" command env AW_DEVICE=${value} "$<TARGET_FILE:attention-cli>" info --model ${fixtures}/tiny_lm)
  add_test(NAME cli.aw_device_${value}
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${command}" -DEXPECT_EXIT=${code} "-DEXPECT_REGEX=${regex}"
                   -P ${aw_test_support_dir}/run_cli.cmake)
  set_tests_properties(cli.aw_device_${value} PROPERTIES FIXTURES_REQUIRED cli_models LABELS cli)
endforeach()
string(JOIN "^^" command env AW_DEVICE=bogus "$<TARGET_FILE:attention-cli>" info --model ${fixtures}/tiny_lm --device cpu)
add_test(NAME cli.device_over_aw_device
         COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${command}" -DEXPECT_EXIT=0 "-DEXPECT_REGEX=device +CPU"
                 -P ${aw_test_support_dir}/run_cli.cmake)
set_tests_properties(cli.device_over_aw_device PROPERTIES FIXTURES_REQUIRED cli_models LABELS cli)

# The llama family (tests/fixtures/hf_models, written by scripts/fixtures/make_hf_decoder_fixtures.py with Hugging
# Face's own classes): every analysis runs on them, pruning included.
set(hf_models ${PROJECT_SOURCE_DIR}/tests/fixtures/hf_models)
aw_cli_test(info_llama EXIT 0
            REGEX "architecture llama\n.*decoder +rms_norm, SwiGLU MLP, 2 key/value heads \\(grouped-query\\)\nrotary +8 of 8 channels per head, base 10000, llama3 scaling\nvocabulary +440 \\(hf_bpe tokenizer\\)"
            ARGS info --model ${hf_models}/llama)
aw_cli_test(info_gpt_neox EXIT 0
            REGEX "decoder +layer_norm, MLP, one key/value head per query head, parallel residual\nrotary +4 of 16 channels per head"
            ARGS info --model ${hf_models}/gpt_neox)
aw_cli_test(attend_mistral EXIT 0 REGEX "tokens:.*layer  2:" ARGS attend --model ${hf_models}/mistral --text "The cat sat on the mat")
aw_cli_test(stats_qwen2 EXIT 0 REGEX "model,layer,CA,[^\n]*\nqwen2,1,[0-9.e-]+(,[0-9.e-]+)+\nqwen2,2,"
            ARGS stats --model ${hf_models}/qwen2 --text ${fixtures}/corpus.txt --window 16)
aw_cli_test(ablate_gpt_neox EXIT 0 REGEX "# model=gpt_neox, metric=perplexity, [^\n]*\nlayer,head,metric,delta\n1,1,[0-9.]+,[-0-9.e]+\n.*2,4,"
            ARGS ablate --model ${hf_models}/gpt_neox --text ${fixtures}/corpus.txt --window 16 --bootstrap 0)
aw_cli_test(importance_llama EXIT 0 REGEX "# model=llama, normalized=true\nlayer,head,importance\n1,1,[0-9.e-]+\n.*2,4,"
            ARGS importance --model ${hf_models}/llama --text ${fixtures}/corpus.txt --window 16)
aw_cli_test(diag_sweep_mistral EXIT 0 REGEX "# model=mistral, metric=perplexity, baseline=[0-9.]+\nfactor,metric,delta\n0.5,[0-9.]+,[-0-9.e]+\n1,[0-9.]+,[-0-9.e]+\n"
            ARGS diag-sweep --model ${hf_models}/mistral --text ${fixtures}/corpus.txt --window 16 --factors 0.5,1 --bootstrap 0)
aw_cli_test(top_tokens_llama EXIT 0 REGEX "layer,sentence,target,method,top1,top2,top3\n1,1,"
            ARGS top-tokens --model ${hf_models}/llama --text "The cat sat on the mat" --target 3)
aw_cli_test(prune_apply_llama EXIT 0 REGEX "pruned 2 of 8 heads \\(importance order\\): [0-9]+ → [0-9]+ parameters. perplexity [0-9.]+ \\(gated model [0-9.]+\\). saved to"
            ARGS prune --model ${hf_models}/llama --text ${fixtures}/corpus.txt --window 16 --apply 25 --save ${fixtures}/pruned_llama)
aw_cli_test(info_dtype_bf16 EXIT 0 REGEX "computes in +bf16 \\(0.0 MB of weights used in place from the file\\)"
            ARGS info --model ${hf_models}/qwen2 --dtype bf16)
aw_cli_test(eval_dtype_bf16 EXIT 0 REGEX "perplexity [0-9.]+" ARGS eval --model ${hf_models}/gpt_neox --dtype bf16 --text ${fixtures}/corpus.txt --window 16)
aw_cli_test(error_dtype_name EXIT 1 STDERR_LINES 1 REGEX "^error: --dtype 'fp8': expected f32, bf16, f16 or auto\n$"
            ARGS info --model ${hf_models}/qwen2 --dtype fp8)
aw_cli_test(error_dtype_f16_on_cpu EXIT 1 STDERR_LINES 1 REGEX "^error: --dtype f16 needs CUDA"
            ARGS info --model ${hf_models}/qwen2 --device cpu --dtype f16)

# GGUF files (tests/fixtures/gguf_models, written by scripts/fixtures/make_gguf_model_fixtures.py with the gguf
# package as llama.cpp's converter writes them): info names the quantisation; every command opens them.
set(gguf_models ${PROJECT_SOURCE_DIR}/tests/fixtures/gguf_models)
aw_cli_test(info_gguf EXIT 0
            REGEX "architecture llama\n.*stored as F16\\+F32\\+Q4_K\\+Q6_K\\+Q8_0\nquantisation Q8_0 \\(Q8_0 8 tensors, F16 6, F32 6, Q4_K 1, Q6_K 1\\)\n"
            ARGS info --model ${gguf_models}/llama3.gguf)
aw_cli_test(attend_gguf EXIT 0 REGEX "tokens:.*layer  2:" ARGS attend --model ${gguf_models}/qwen3.gguf --text "The cat sat on the mat")
aw_cli_test(eval_gguf EXIT 0 REGEX "perplexity [0-9.]+" ARGS eval --model ${gguf_models}/gemma2.gguf --text ${fixtures}/corpus.txt --window 16)
aw_cli_test(error_gguf_quantisation EXIT 1 STDERR_LINES 1
            REGEX "^error: [^\n]*/tests/fixtures/gguf/unsupported.gguf: tensor 'blk.0.attn_q.weight' is Q3_K; supported: F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K\n$"
            ARGS info --model ${PROJECT_SOURCE_DIR}/tests/fixtures/gguf/unsupported.gguf)
aw_cli_test(error_gguf_missing EXIT 1 STDERR_LINES 1 REGEX "^error: /no/such/model.gguf: no such GGUF file\n$"
            ARGS info --model /no/such/model.gguf)
