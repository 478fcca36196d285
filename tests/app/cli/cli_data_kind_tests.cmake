# tests/app/cli/cli_data_kind_tests.cmake — data of the wrong kind: a binary file given as an analysis's
# text is one line naming the file and what the analysis needs, for each kind of model (it used to be
# read as text: "3 / 445 batches …" on a checkpoint's weights).
aw_cli_test(error_language_model_binary_data EXIT 1 STDERR_LINES 1
            REGEX "/tiny_lm/model.safetensors: is a binary file, not text \\(a zero byte at offset [0-9]+\\): ablate needs plain text\n"
            ARGS ablate --model ${fixtures}/tiny_lm --text ${fixtures}/tiny_lm/model.safetensors)
aw_cli_test(error_stats_binary_data EXIT 1 STDERR_LINES 1
            REGEX "/tiny_lm/model.safetensors: is a binary file, not text \\(a zero byte at offset [0-9]+\\): stats needs plain text\n"
            ARGS stats --model ${fixtures}/tiny_lm --text ${fixtures}/tiny_lm/model.safetensors)
aw_cli_test(error_classifier_binary_data EXIT 1 STDERR_LINES 1
            REGEX "/model.safetensors: is a binary file, not text \\(a zero byte at offset [0-9]+\\): eval needs label<TAB>text lines\n"
            ARGS eval --model ${fixtures}/tiny_bert_classifier --text ${fixtures}/tiny_bert_classifier/model.safetensors)
