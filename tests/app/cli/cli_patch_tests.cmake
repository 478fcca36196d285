# tests/app/cli/cli_patch_tests.cmake — `patch` from the command line: the table on a tiny language model,
# and bad input as one line (its numbers: tests/analysis/patching/).
set(patch_pairs ${CMAKE_CURRENT_BINARY_DIR}/patch_fixtures)  # not in ${fixtures}: write_fixtures owns that folder
file(WRITE ${patch_pairs}/patch_pairs.tsv "w2 w3 w4 w5\tw2 w3 w9 w5\tw4\tw9\nw8 w3 w4\tw8 w10 w4\tw3\tw10\n")
file(WRITE ${patch_pairs}/patch_pairs_long_answer.tsv "w2 w3 w4 w5\tw2 w3 w9 w5\tw4 w5\tw9\n")
file(WRITE ${patch_pairs}/patch_pairs_lengths.tsv "w2 w3 w4 w5\tw2 w3 w9 w5\tw4\tw9\nw2 w3\tw2 w3 w4\tw4\tw9\n")
aw_cli_test(patch EXIT 0
            REGEX "# metric=logit\\(answer\\) - logit\\(foil\\) at the last position, clean_mean=.*significance=no intervals or p-values: 2 pairs are fewer than the 20 independent units.*kind=output, position=all, data=patch_pairs.tsv\nlayer,head,effect,dla\n1,1,"
            ARGS patch --model ${fixtures}/tiny_lm --pairs ${patch_pairs}/patch_pairs.tsv)
aw_cli_test(patch_pattern_position_refused EXIT 1 STDERR_LINES 1
            REGEX "attention-cli patch: --position applies to output patching \\(--kind output\\): a pattern is patched whole\n"
            ARGS patch --model ${fixtures}/tiny_lm --pairs ${patch_pairs}/patch_pairs.tsv --kind pattern --position 1)
aw_cli_test(error_patch_long_answer EXIT 1 STDERR_LINES 1
            REGEX "patch_pairs_long_answer.tsv:1: the answer 'w4 w5' is 2 tokens \\('w4', 'w5'\\): patching needs one\n"
            ARGS patch --model ${fixtures}/tiny_lm --pairs ${patch_pairs}/patch_pairs_long_answer.tsv)
aw_cli_test(error_patch_lengths EXIT 1 STDERR_LINES 1
            REGEX "patch_pairs_lengths.tsv:2: the clean prompt is 2 tokens and the corrupted 3: patching needs prompts of one length\n"
            ARGS patch --model ${fixtures}/tiny_lm --pairs ${patch_pairs}/patch_pairs_lengths.tsv)
aw_cli_test(error_patch_classifier EXIT 1 STDERR_LINES 1
            REGEX "tiny_bert_classifier: patch needs a language model; this checkpoint is a bert classifier\n"
            ARGS patch --model ${fixtures}/tiny_bert_classifier --pairs ${patch_pairs}/patch_pairs.tsv)
aw_cli_test(patch_at_key EXIT 0
            REGEX "kind=output, position=all, hook=k, data=patch_pairs.tsv\nlayer,head,effect,dla\n1,1,"
            ARGS patch --model ${fixtures}/tiny_lm --pairs ${patch_pairs}/patch_pairs.tsv --hook k)
aw_cli_test(patch_pattern_hook_refused EXIT 1 STDERR_LINES 1
            REGEX "attention-cli patch: --hook applies to output patching \\(--kind output\\): a pattern is patched whole\n"
            ARGS patch --model ${fixtures}/tiny_lm --pairs ${patch_pairs}/patch_pairs.tsv --kind pattern --hook q)
aw_cli_test(error_patch_hook EXIT 1 STDERR_LINES 1
            REGEX "--hook must be z, q, k, v, head_out, resid_pre, attn_out, resid_mid, mlp_out or resid_post, got 'logits'\n"
            ARGS patch --model ${fixtures}/tiny_lm --pairs ${patch_pairs}/patch_pairs.tsv --hook logits)
aw_cli_test(patch_at_resid_post EXIT 0
            REGEX "kind=output, position=1, hook=resid_post, data=patch_pairs.tsv\nlayer,position,effect\n1,1,[^\n]*\n2,1,"
            ARGS patch --model ${fixtures}/tiny_lm --pairs ${patch_pairs}/patch_pairs.tsv --hook resid_post --position 1)
aw_cli_test(error_patch_resid_lengths EXIT 1 STDERR_LINES 1
            REGEX "patch_pairs.tsv: patching at 'resid_post' position by position needs prompts of one length: line 1 has 4 tokens, line 2 3; or choose one position (--position)\n"
            ARGS patch --model ${fixtures}/tiny_lm --pairs ${patch_pairs}/patch_pairs.tsv --hook resid_post)
