# tests/app/cli/cli_families_tests.cmake — qwen3, gemma2, gemma3_text, phi3 and olmo2 from the command line,
# attend --logits and eval --per-example
# (tests/fixtures/hf_models, written with Hugging Face's own classes): what `info` says of each, analyses
# running on them, pruning, and the patch table without DLA where a head's write has no path of its own
# (their numbers: tests/models/nn/test_transformer_hf_families.cpp and tests/analysis/).
set(hf_models ${PROJECT_SOURCE_DIR}/tests/fixtures/hf_models)
aw_cli_test(info_gemma2 EXIT 0
            REGEX "architecture gemma2\n.*decoder +rms_norm_plus_one, GeGLU MLP, 2 key/value heads \\(grouped-query\\), sliding window 5 on 1 of 2 layers\nalso +norms before and after each sublayer, scores soft-capped at 5, logits soft-capped at 3, embeddings × 5.65685, scores ÷ √16\n"
            ARGS info --model ${hf_models}/gemma2)
aw_cli_test(info_gemma3 EXIT 0
            REGEX "also +query/key norms per head, norms before and after each sublayer, embeddings × 5.65685, scores ÷ √8, sliding layers' rotary base 10000, default scaling\nrotary +8 of 8 channels per head, base 1e\\+06, linear scaling\n"
            ARGS info --model ${hf_models}/gemma3)
aw_cli_test(info_olmo2_json EXIT 0 REGEX "\"post_norms\": true,.*\"pre_norms\": false,.*\"qk_norm\": \"whole\""
            ARGS info --model ${hf_models}/olmo2 --json)
aw_cli_test(info_qwen3 EXIT 0 REGEX "decoder +rms_norm, SwiGLU MLP, 2 key/value heads \\(grouped-query\\)\nalso +query/key norms per head\n"
            ARGS info --model ${hf_models}/qwen3)
aw_cli_test(attend_gemma3 EXIT 0 REGEX "tokens:.*layer  2:" ARGS attend --model ${hf_models}/gemma3 --text "The cat sat on the mat")
aw_cli_test(head_types_phi3 EXIT 0 REGEX "layer,head,previous_token,duplicate_token,induction,sink,entropy,self\n1,1,"
            ARGS head-types --model ${hf_models}/phi3_grouped --sequences 2 --length 8)
aw_cli_test(prune_apply_gemma2 EXIT 0 REGEX "pruned 2 of 8 heads \\(importance order\\): [0-9]+ → [0-9]+ parameters.*saved to"
            ARGS prune --model ${hf_models}/gemma2 --text ${fixtures}/corpus.txt --window 16 --apply 25 --save ${fixtures}/pruned_gemma2)
aw_cli_test(error_prune_olmo2 EXIT 1 STDERR_LINES 1
            REGEX "not olmo2 \\(its query and key norms span every head of a layer: removing one changes the others\\)\n"
            ARGS prune --model ${hf_models}/olmo2 --text ${fixtures}/corpus.txt --window 16 --apply 25 --save ${fixtures}/pruned_olmo2)
set(family_pairs ${CMAKE_CURRENT_BINARY_DIR}/family_fixtures)
file(WRITE ${family_pairs}/pairs.tsv "the in the it\tthe it the it\tin\tit\n")
aw_cli_test(patch_gemma2_no_dla EXIT 0
            REGEX "dla=no DLA: a gemma2 model normalises the attention's output \\(every head's write together\\) before the residual, so no head's write is its own"
            ARGS patch --model ${hf_models}/gemma2 --pairs ${family_pairs}/pairs.tsv)

# attend --logits (the numbers: tests/analysis/capture/test_next_tokens.cpp).
aw_cli_test(attend_logits_top EXIT 0 REGEX "top-2 next tokens after each position \\(logits\\):\n +0 \\[.*\\] →  .* -?[0-9.]+  .* -?[0-9.]+\n"
            ARGS attend --model ${hf_models}/gemma2 --text "the in the it" --logits top-2)
aw_cli_test(attend_logits_top_json EXIT 0 REGEX "\"logits_top\":.\\{\"next\":.\\{\"id\":[0-9]+,\"logit\":"
            ARGS attend --model ${hf_models}/llama --text "the in the it" --logits top-1 --json)
aw_cli_test(attend_logits_full EXIT 0 REGEX "attention of 2 layers written to .*logits.safetensors, with the logits\n"
            ARGS attend --model ${hf_models}/qwen3 --text "the in the it" --logits full --out ${fixtures}/logits.safetensors)
aw_cli_test(error_attend_logits_full_json EXIT 1 STDERR_LINES 1
            REGEX "attention-cli attend: --logits full goes with --out FILE.safetensors \\(the logits beside the attention\\)\n"
            ARGS attend --model ${hf_models}/qwen3 --text "the in" --logits full)
aw_cli_test(error_attend_logits_value EXIT 1 STDERR_LINES 1
            REGEX "attention-cli attend: --logits top-0: expected top-K \\(K ≥ 1, e.g. top-5\\) or full\n"
            ARGS attend --model ${hf_models}/qwen3 --text "the in" --logits top-0)
aw_cli_test(error_attend_logits_classifier EXIT 1 STDERR_LINES 1
            REGEX "attention-cli attend: --logits needs a language model \\(next-token logits\\); tiny_bert_classifier is a bert classifier\n"
            ARGS attend --model ${fixtures}/tiny_bert_classifier --text "w2 w3" --logits top-2)

# eval --per-example (the numbers: tests/analysis/evaluation/test_eval_per_example.cpp).
aw_cli_test(eval_per_example EXIT 0 REGEX "perplexity [0-9.]+" OUT_FILE ${fixtures}/per_example.csv
            OUT_FILE_REGEX "# model=tiny_lm, data=.*corpus.txt, unit=windows\nexample,tokens,loss,mean_loss\n1,7,[0-9.]+,[0-9.]+\n2,7,"
            ARGS eval --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --window 8 --per-example ${fixtures}/per_example.csv)

# translate --target (its numbers: tests/analysis/capture/test_translation_target.cpp).
set(hf_translation ${PROJECT_SOURCE_DIR}/tests/fixtures/hf)
aw_cli_test(translate_target EXIT 0
            REGEX "J'ai faim.\nlog-probability -[0-9.]+ of the given target \\(teacher-forced, [0-9]+ tokens with EOS\\)\nsource tokens:.*given target tokens \\(→ most attended source token"
            ARGS translate --model ${hf_translation}/marian_tiny --text "I am hungry." --target "J'ai faim.")
aw_cli_test(error_translate_target_beam EXIT 1 STDERR_LINES 1
            REGEX "attention-cli translate: --beam, --max-length and --length-penalty shape a search; --target is read as given \\(teacher-forced\\)\n"
            ARGS translate --model ${hf_translation}/marian_tiny --text "I am hungry." --target "J'ai faim." --beam 2)
aw_cli_test(eval_per_example_pairs EXIT 0 REGEX "perplexity [0-9.]+" OUT_FILE ${fixtures}/per_pair.csv
            OUT_FILE_REGEX "# model=marian_tiny, data=.*pairs_en_fr.tsv, unit=pairs\nexample,tokens,loss,mean_loss\n1,[0-9]+,[0-9.]+,[0-9.]+\n"
            ARGS eval --model ${hf_translation}/marian_tiny --text ${PROJECT_SOURCE_DIR}/tests/fixtures/pairs_en_fr.tsv --per-example ${fixtures}/per_pair.csv)
