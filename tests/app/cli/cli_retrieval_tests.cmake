# tests/app/cli/cli_retrieval_tests.cmake — `retrieval-heads` from the command line: the refusals a person
# meets first, each as one line (its counts: tests/analysis/retrieval/).
set(retrieval_files ${CMAKE_CURRENT_BINARY_DIR}/retrieval_fixtures)  # not in ${fixtures}: write_fixtures owns that folder
file(WRITE ${retrieval_files}/needles.txt "w3 w4 w5 w6\n")
aw_cli_test(error_retrieval_copies_nothing EXIT 1 STDERR_LINES 1
            REGEX "tiny_lm: copied none of the 10 needle tokens after the cue: there is no copy to attribute to a head, so no retrieval score\n"
            ARGS retrieval-heads --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --needles ${retrieval_files}/needles.txt)
aw_cli_test(error_retrieval_needle_too_long EXIT 1 STDERR_LINES 1
            REGEX "corpus.txt: needle 1 \\([0-9]+ tokens\\), the prompt \\(0\\) and the needle again do not fit 16 tokens\n"
            ARGS retrieval-heads --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt)
aw_cli_test(error_retrieval_depth EXIT 1 STDERR_LINES 1
            REGEX "attention-cli retrieval-heads: --depths must be numbers from 0 to 1, got 'half'\n"
            ARGS retrieval-heads --model ${fixtures}/tiny_lm --text ${fixtures}/corpus.txt --depths half)
