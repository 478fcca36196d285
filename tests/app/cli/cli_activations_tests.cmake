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

# Bad input.
aw_cli_test(error_activations_unknown_point EXIT 1 STDERR_LINES 1
            REGEX "--hooks final_norm: not a point of a bert model; it has resid_pre, attn_in, q, k, v, scores, pattern, z, head_out, attn_out, resid_mid, mlp_in, mlp_act, mlp_out, resid_post, logits\n"
            ARGS activations --model ${fixtures}/tiny_bert_classifier --text "w2 w3" --hooks final_norm
                 --out ${activation_files}/no.safetensors)
aw_cli_test(error_activations_lama EXIT 1 STDERR_LINES 1 REGEX "--hooks z: a lama model has no hook points yet\n"
            ARGS activations --model ${fixtures}/tiny_lama --text "w2 w3" --hooks z --out ${activation_files}/no.safetensors)
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
