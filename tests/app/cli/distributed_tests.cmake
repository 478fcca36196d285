# tests/app/cli/distributed_tests.cmake — --distributed end to end: each analysis run by two attention-cli
# ranks over c10d (the TCPStore's sums on 127.0.0.1) against the same run in one process (distributed_check.sh), and
# the bad environments with their one line. Each test has its own port, so ctest -j can run them.
set(sample ${PROJECT_SOURCE_DIR}/sample_data)
set(text ${sample}/demo_sentences.txt)
set(window --window 16 --batch 2)   # 3 batches of the demo text: rank 0 takes two, rank 1 one
set(next_port 29731)

function(aw_distributed_test name)
  math(EXPR port "${next_port}")
  math(EXPR following "${next_port} + 1")
  set(next_port ${following} PARENT_SCOPE)
  add_test(NAME distributed.${name}
           COMMAND bash ${aw_test_support_dir}/distributed_check.sh $<TARGET_FILE:attention-cli> ${port}
                   ${CMAKE_CURRENT_BINARY_DIR}/distributed/${name} ${ARGN})
  set_tests_properties(distributed.${name} PROPERTIES LABELS "cli;distributed" PASS_REGULAR_EXPRESSION "^identical"
                       SKIP_REGULAR_EXPRESSION "^skipped: two NCCL ranks need two GPUs")
endfunction()

aw_distributed_test(ablate ablate --model ${sample}/vanilla_lm --text ${text} ${window} --bootstrap 200)
aw_distributed_test(ablate_all_but_one ablate --model ${sample}/bet_sf --text ${text} ${window} --mode all-but-one --all)
aw_distributed_test(ablate_choose_on ablate --model ${sample}/vanilla_lm --text ${text} ${window} --mode all-but-one
                    --choose-on ${sample}/README.md --bootstrap 100 --min-units 2)
aw_distributed_test(ablate_classifier ablate --model ${sample}/lama_amazon --text ${sample}/demo_reviews.tsv --batch 2)
aw_distributed_test(importance importance --model ${sample}/vanilla_lm --text ${text} ${window})
aw_distributed_test(importance_per_example importance --model ${sample}/bet_sf --text ${text} ${window} --per-example)
aw_distributed_test(prune prune --model ${sample}/vanilla_lm --text ${text} ${window} --bootstrap 100)
aw_distributed_test(diag_sweep diag-sweep --model ${sample}/bet_sf --text ${text} ${window} --factors 0,0.5,mask)
aw_distributed_test(stats stats --model ${sample}/vanilla_lm --model ${sample}/bet_sf --text ${text} ${window} --per-head)
aw_distributed_test(eval eval --model ${sample}/vanilla_lm --text ${text} ${window})
aw_distributed_test(eval_translation eval --model ${sample}/mt_vanilla --text ${sample}/../tests/fixtures/pairs_en_fr.tsv --batch 2)

# Bad environments and options: exit code and the one line (run_cli.cmake), never a hang.
function(aw_distributed_error name)
  cmake_parse_arguments(T "" "EXIT;REGEX" "ENV;ARGS" ${ARGN})
  string(JOIN "^^" command env ${T_ENV} "$<TARGET_FILE:attention-cli>" ${T_ARGS})
  add_test(NAME distributed.${name}
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${command}" -DEXPECT_EXIT=${T_EXIT} "-DEXPECT_REGEX=${T_REGEX}"
                   -DEXPECT_STDERR_LINES=1 -P ${aw_test_support_dir}/run_cli.cmake)
  set_tests_properties(distributed.${name} PROPERTIES LABELS "cli;distributed" TIMEOUT 60)
endfunction()
set(ablate_args ablate --model ${sample}/vanilla_lm --text ${text} --distributed)
aw_distributed_error(no_port EXIT 1 REGEX "error: --distributed: MASTER_PORT is not set \\(rank 0's port"
                     ENV -u MASTER_PORT RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 ARGS ${ablate_args})
aw_distributed_error(rank_too_large EXIT 1 REGEX "error: --distributed: RANK 2 is not below WORLD_SIZE 2\n"
                     ENV RANK=2 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29790 ARGS ${ablate_args})
aw_distributed_error(bad_world_size EXIT 1 REGEX "WORLD_SIZE must be a whole number from 1 to 65536, got 'two'"
                     ENV RANK=0 WORLD_SIZE=two MASTER_ADDR=127.0.0.1 MASTER_PORT=29790 ARGS ${ablate_args})
aw_distributed_error(master_unreachable EXIT 1
                     REGEX "error: --distributed: rank 1 could not reach rank 0 at 127.0.0.1:29791 within 2 s \\(is rank 0 running"
                     ENV RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29791
                     ARGS ${ablate_args} --distributed-timeout 2)
aw_distributed_error(timeout_alone EXIT 1 REGEX "error: attention-cli ablate: --distributed-timeout goes with --distributed\n"
                     ARGS ablate --model ${sample}/vanilla_lm --text ${text} --distributed-timeout 5)
aw_distributed_error(bad_timeout EXIT 1 REGEX "--distributed-timeout must be 1 to 86400 seconds, got '0'"
                     ENV RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=29790
                     ARGS ${ablate_args} --distributed-timeout 0)
aw_distributed_error(prune_apply EXIT 1 REGEX "--apply saves one pruned checkpoint: run it without --distributed"
                     ENV RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=29790
                     ARGS prune --model ${sample}/vanilla_lm --text ${text} --apply 25 --save ${CMAKE_CURRENT_BINARY_DIR}/never
                          --order importance --distributed)
aw_distributed_error(not_distributable EXIT 1 REGEX "unknown option --distributed"
                     ARGS top-tokens --model ${sample}/vanilla_lm --text ${text} --distributed)
# Two ranks that disagree: each says how, and neither waits past its timeout.
add_test(NAME distributed.mismatch
         COMMAND bash ${aw_test_support_dir}/distributed_mismatch.sh $<TARGET_FILE:attention-cli> 29792 ${ablate_args})
set_tests_properties(distributed.mismatch PROPERTIES LABELS "cli;distributed" TIMEOUT 60 PASS_REGULAR_EXPRESSION "^mismatches reported")
