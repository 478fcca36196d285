# tests/app/cli/cli_logit_lens_tests.cmake — `logit-lens` from the command line: the CSV's layout on a
# tiny language model (3 layers read: the embeddings and 2 blocks), the asked positions only, a target,
# and bad input as one line (its numbers against Hugging Face: tests/analysis/logit_lens/).
set(lens_files ${CMAKE_CURRENT_BINARY_DIR}/logit_lens_fixtures)  # not in ${fixtures}: write_fixtures owns that folder
file(WRITE ${lens_files}/text.txt "w2 w3 w4 w5 w6\n")
file(WRITE ${lens_files}/empty.txt "")
aw_cli_test(logit_lens EXIT 0 STDOUT_LINES 14
            REGEX "^# model=tiny_lm, tokens=4, positions=4, k=2, target=next\nlayer,position,token,scored,rank,probability,kl,top1,p1,top2,p2\n0,0,w2,w3,[0-9]+,[0-9.e-]+,[0-9.e-]+,[^,]+,[0-9.e-]+,[^,]+,[0-9.e-]+\n.*\n0,3,w5,,,,[0-9.e-]+,.*\n2,3,w5,,,,0,"
            ARGS logit-lens --model ${fixtures}/tiny_lm --text "w2 w3 w4 w5" --k 2)
aw_cli_test(logit_lens_positions_from_file EXIT 0 STDOUT_LINES 8
            REGEX "positions=2, k=5, target=next\n.*\n0,1,w3,w4,.*\n0,4,w6,,,,.*\n2,4,w6,,,,0,"
            ARGS logit-lens --model ${fixtures}/tiny_lm --text-file ${lens_files}/text.txt --positions 1,4)
aw_cli_test(logit_lens_target EXIT 0
            REGEX "target=w9\n.*\n0,0,w2,w9,[0-9]+,.*\n0,3,w5,w9,[0-9]+,"
            ARGS logit-lens --model ${fixtures}/tiny_lm --text "w2 w3 w4 w5" --target w9)
aw_cli_test(logit_lens_heads EXIT 0
            OUT_FILE ${lens_files}/heads.csv
            OUT_FILE_REGEX "^# model=tiny_lm, target=next, what=each head's write[^\n]*\nlayer,head,position,token,scored,dla,top1,logit1\n1,1,1,w3,w4,[0-9.e-]+,[^,]+,[0-9.e-]+\n1,1,3,w5,,,[^,]+,[0-9.e-]+\n1,2,1,w3,.*\n2,3,3,w5,,,"
            ARGS logit-lens --model ${fixtures}/tiny_lm --text "w2 w3 w4 w5" --positions 1,3 --k 1 --heads
                 --heads-out ${lens_files}/heads.csv)

# Bad input.
aw_cli_test(error_logit_lens_two_texts EXIT 1 STDERR_LINES 1 REGEX "give either --text \"…\" or --text-file FILE"
            ARGS logit-lens --model ${fixtures}/tiny_lm --text "w2 w3" --text-file ${lens_files}/text.txt)
aw_cli_test(error_logit_lens_missing_file EXIT 1 STDERR_LINES 1 REGEX "/no/such/text.txt: cannot be read \\("
            ARGS logit-lens --model ${fixtures}/tiny_lm --text-file /no/such/text.txt)
aw_cli_test(error_logit_lens_empty_file EXIT 1 STDERR_LINES 1 REGEX "empty.txt: the file is empty"
            ARGS logit-lens --model ${fixtures}/tiny_lm --text-file ${lens_files}/empty.txt)
aw_cli_test(error_logit_lens_position EXIT 1 STDERR_LINES 1
            REGEX "positions 2,9: '9' is not a position from 0 to 3 or a range of them \\(\"0,3-5\"\\)"
            ARGS logit-lens --model ${fixtures}/tiny_lm --text "w2 w3 w4 w5" --positions 2,9)
aw_cli_test(error_logit_lens_target EXIT 1 STDERR_LINES 1
            REGEX "--target 'w2 w3' is 2 tokens for tiny_lm \\('w2', 'w3'\\); the lens scores one"
            ARGS logit-lens --model ${fixtures}/tiny_lm --text "w2 w3 w4 w5" --target "w2 w3")
aw_cli_test(error_logit_lens_too_long EXIT 1 STDERR_LINES 1 REGEX "--text is 17 tokens; tiny_lm allows 16"
            ARGS logit-lens --model ${fixtures}/tiny_lm --text "a b c d e f g h i j k l m n o p q")
aw_cli_test(error_logit_lens_classifier EXIT 1 STDERR_LINES 1
            REGEX "tiny_bert_classifier: logit-lens needs a language model; this checkpoint is a bert classifier\n"
            ARGS logit-lens --model ${fixtures}/tiny_bert_classifier --text "w2 w3")
