# tests/app/cli/cli_help_tests.cmake — a help page for every command (tests/support/help_pages_check.cmake),
# what the pages of the commands that are not analyses say, and an unknown command's one line.
add_test(NAME cli.help_every_command
         COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:attention-cli> -P ${PROJECT_SOURCE_DIR}/tests/support/help_pages_check.cmake)
set_tests_properties(cli.help_every_command PROPERTIES LABELS cli)
aw_cli_test(help_train EXIT 0
            REGEX "usage: attention-cli train .options.\n\n  train +--arch transformer_lm.*  train +--arch lama\\|bigru_max.*  train +… --seeds 1,2,3.*every command: --device"
            ARGS help train)
aw_cli_test(help_attend_flag EXIT 0 REGEX "usage: attention-cli attend .options.\n\n  attend +--model DIR --text.*  attend +--from FILE.safetensors"
            ARGS attend --help)
aw_cli_test(help_translate EXIT 0 REGEX "usage: attention-cli translate .options.\n\n  translate --model DIR" ARGS help translate)
aw_cli_test(error_help_unknown EXIT 2 STDERR_LINES 1 REGEX "attention-cli help: unknown command 'nonsense' \\(see attention-cli help\\)\n"
            ARGS help nonsense)
# --special-tokens-as-text: "<s>" in the text is its pieces, not the special token (Llama 2's tokenizer).
aw_cli_test(attend_special_token EXIT 0 REGEX "5 tokens: .<s>. .<s>. "
            ARGS attend --model ${hf_models}/llama_bias --text "<s> the")
aw_cli_test(attend_special_tokens_as_text EXIT 0 REGEX "7 tokens: .<s>. .▁. .<0x3C>. .s. .<0x3E>. "
            ARGS attend --model ${hf_models}/llama_bias --text "<s> the" --special-tokens-as-text)
