# tests/app/cli/cli_activations_tests.cmake — `activations` from the command line: the file written with
# the asked points and its ids in the metadata, and bad input as one line with no file left (its numbers
# against each hook's reader: tests/analysis/activations/).
set(activation_files ${CMAKE_CURRENT_BINARY_DIR}/activations_fixtures)
file(WRITE ${activation_files}/text.txt "w2 w3 w4 w5 w6\n")
aw_cli_test(activations EXIT 0 STDOUT_LINES 1 REGEX "acts.safetensors: 2 tensors, [0-9.]+ MB, 4 tokens\n"
            OUT_FILE ${activation_files}/acts.safetensors
            OUT_FILE_REGEX "\"ids\":\".2,3,4,5.\".*\"blocks\\.1\\.attn\\.z\":.\"dtype\":\"F32\",\"shape\":.2,4,4."
            ARGS activations --model ${fixtures}/tiny_lm --text "w2 w3 w4 w5" --hooks z,resid_post --layers 1
                 --heads 0,2 --out ${activation_files}/acts.safetensors)
aw_cli_test(activations_from_file EXIT 0 REGEX "half.safetensors: 2 tensors, [0-9.]+ MB, 5 tokens\n"
            OUT_FILE ${activation_files}/half.safetensors OUT_FILE_REGEX "\"dtype\":\"BF16\""
            ARGS activations --model ${fixtures}/tiny_lm --text-file ${activation_files}/text.txt --hooks attn.pattern
                 --positions 1-3 --out-dtype bf16 --out ${activation_files}/half.safetensors)
# LAMA's word weights (one query row per head over the words); a translation model's points by kind,
# teacher-forced (the case of tests/fixtures/hooks/marian.safetensors: 13 source, 10 target tokens).
aw_cli_test(activations_lama EXIT 0 REGEX "lama.safetensors: 2 tensors, [0-9.]+ MB, 2 tokens\n"
            OUT_FILE ${activation_files}/lama.safetensors
            OUT_FILE_REGEX "\"blocks\\.0\\.attn\\.pattern\":.\"dtype\":\"F32\",\"shape\":.[0-9]+,1,2."
            ARGS activations --model ${fixtures}/tiny_lama --text "w2 w3" --hooks pattern,logits
                 --out ${activation_files}/lama.safetensors)
aw_cli_test(activations_translation EXIT 0 REGEX "marian.safetensors: 3 tensors, [0-9.]+ MB, 13 tokens\n"
            OUT_FILE ${activation_files}/marian.safetensors
            OUT_FILE_REGEX "\"target_ids\":\".181,2,179,13,119,2,77,119,20,5.\".*\"enc\\.blocks\\.1\\.resid_post\":.\"dtype\":\"F32\",\"shape\":.13,16..*\"cross\\.blocks\\.1\\.attn\\.pattern\":.\"dtype\":\"F32\",\"shape\":.2,10,13."
            ARGS activations --model ${PROJECT_SOURCE_DIR}/tests/fixtures/hf/marian_tiny --text "I am hungry."
                 --target "J'ai faim." --hooks enc.resid_post,cross.pattern,logits --layers 1
                 --out ${activation_files}/marian.safetensors)

# Bad input.
aw_cli_test(error_activations_unknown_point EXIT 1 STDERR_LINES 1
            REGEX "--hooks final_norm: not a point of a bert model; it has resid_pre, attn_in, q, k, v, scores, pattern, z, head_out, attn_out, resid_mid, mlp_in, mlp_act, mlp_out, resid_post, logits\n"
            ARGS activations --model ${fixtures}/tiny_bert_classifier --text "w2 w3" --hooks final_norm
                 --out ${activation_files}/no.safetensors)
aw_cli_test(error_activations_lama EXIT 1 STDERR_LINES 1
            REGEX "--hooks q: not a point of a lama model; it has attn_in, scores, pattern, z, logits\n"
            ARGS activations --model ${fixtures}/tiny_lama --text "w2 w3" --hooks q --out ${activation_files}/no.safetensors)
aw_cli_test(error_activations_lama_positions EXIT 1 STDERR_LINES 1
            REGEX "blocks.0.attn.pattern has one query row per head \\(LAMA's context\\), not one per position; --positions applies to attn_in\n"
            ARGS activations --model ${fixtures}/tiny_lama --text "w2 w3" --hooks pattern --positions 0
                 --out ${activation_files}/no.safetensors)
aw_cli_test(error_activations_target_not_translation EXIT 1 STDERR_LINES 1
            REGEX "--target is a translation model's \\(the text its decoder reads\\); a transformer_lm model reads one text\n"
            ARGS activations --model ${fixtures}/tiny_lm --text "w2 w3" --target "w4" --hooks z
                 --out ${activation_files}/no.safetensors)
aw_cli_test(error_activations_translation_unkinded EXIT 1 STDERR_LINES 1
            REGEX "--hooks z: not a point of a marian model; it has enc.resid_pre, enc.attn_in, .*, cross.resid_mid, dec.mlp_in, dec.mlp_act, dec.mlp_out, dec.resid_post, logits\n"
            ARGS activations --model ${PROJECT_SOURCE_DIR}/tests/fixtures/hf/marian_tiny --text "I am hungry." --hooks z
                 --out ${activation_files}/no.safetensors)
aw_cli_test(error_activations_translation_no_target EXIT 1 STDERR_LINES 1
            REGEX "cross.pattern needs a target \\(the translation the decoder reads, teacher-forced\\)\n"
            ARGS activations --model ${PROJECT_SOURCE_DIR}/tests/fixtures/hf/marian_tiny --text "I am hungry."
                 --hooks cross.pattern --out ${activation_files}/no.safetensors)
aw_cli_test(error_activations_layer EXIT 1 STDERR_LINES 1 REGEX "--layers 0,2|layers 0,2: '2' is not a layer from 0 to 1"
            ARGS activations --model ${fixtures}/tiny_lm --text "w2 w3" --hooks z --layers 0,2
                 --out ${activation_files}/no.safetensors)
aw_cli_test(error_activations_position EXIT 1 STDERR_LINES 1 REGEX "'7' is not a position from 0 to 1"
            ARGS activations --model ${fixtures}/tiny_lm --text "w2 w3" --hooks z --positions 7
                 --out ${activation_files}/no.safetensors)
aw_cli_test(error_activations_out EXIT 1 STDERR_LINES 1 REGEX "--out acts.npy: the file must end in .safetensors\n"
            ARGS activations --model ${fixtures}/tiny_lm --text "w2 w3" --hooks z --out acts.npy)
aw_cli_test(error_activations_dtype EXIT 1 STDERR_LINES 1 REGEX "--out-dtype f64: expected f32, f16 or bf16\n"
            ARGS activations --model ${fixtures}/tiny_lm --text "w2 w3" --hooks z --out-dtype f64
                 --out ${activation_files}/no.safetensors)
aw_cli_test(error_activations_no_hooks EXIT 1 STDERR_LINES 1 REGEX "--hooks"
            ARGS activations --model ${fixtures}/tiny_lm --text "w2 w3" --out ${activation_files}/no.safetensors)
