# tests/app/cli/cli_head_types_tests.cmake — `head-types` from the command line: the table on a tiny
# language model and on a BERT encoder, and each bad input as one line (its numbers:
# tests/analysis/head_types/).
aw_cli_test(head_types EXIT 0
            REGEX "# model=tiny_lm, sink_epsilon=0.3, sink_rate=[0-9.]+, .*induction_on=4 random sequences of 8 tokens repeated once, seed 1, scores_on=the generated sequences, shown=induction\nlayer,head,previous_token,duplicate_token,induction,sink,entropy,self\n1,1,"
            ARGS head-types --model ${fixtures}/tiny_lm --sequences 4)
aw_cli_test(head_types_corpus_bert EXIT 0 REGEX "scores_on=.*corpus.txt, shown=sink\nlayer,head,"
            ARGS head-types --model ${fixtures}/tiny_bert_encoder --text ${fixtures}/corpus.txt --sequences 2 --score sink)
aw_cli_test(error_head_types_epsilon EXIT 1 STDERR_LINES 1
            REGEX "attention-cli head-types: --sink-epsilon must be between 0 and 1 \\(exclusive\\), got 0\n"
            ARGS head-types --model ${fixtures}/tiny_lm --sink-epsilon 0)
aw_cli_test(error_head_types_length EXIT 1 STDERR_LINES 1
            REGEX "attention-cli head-types: --length is 9: twice that must fit tiny_lm's 16 positions\n"
            ARGS head-types --model ${fixtures}/tiny_lm --length 9)
aw_cli_test(error_head_types_translation EXIT 1 STDERR_LINES 1
            REGEX "marian_tiny: head-types needs token-to-token self-attention \\(a language model, or a BERT-style classifier or encoder\\); this checkpoint is a marian translation model\n"
            ARGS head-types --model ${hf_fixtures}/marian_tiny)
