// tests/support/conllu_sentences.h — two CoNLL-U sentences worked by hand, for the syntax hints'
// reader and the BET(SG) training that points at them.
#pragma once

namespace aw::test {

// "The cat sat on the mat ." — det, nsubj, root, case, det, obl, punct.
inline constexpr const char* kCatSentence =
    "# text = The cat sat on the mat .\n"
    "1\tThe\tthe\tDET\t_\t_\t2\tdet\t_\t_\n"
    "2\tcat\tcat\tNOUN\t_\t_\t3\tnsubj\t_\t_\n"
    "3\tsat\tsit\tVERB\t_\t_\t0\troot\t_\t_\n"
    "4\ton\ton\tADP\t_\t_\t6\tcase\t_\t_\n"
    "5\tthe\tthe\tDET\t_\t_\t6\tdet\t_\t_\n"
    "6\tmat\tmat\tNOUN\t_\t_\t3\tobl\t_\t_\n"
    "7\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_\n"
    "\n";

// "She gave him a book ." with a (made-up) multi-word token over words 4–5 and an empty node 5.1,
// both of which the reader must skip.
inline constexpr const char* kBookSentence =
    "# text = She gave him abook .\n"
    "1\tShe\tshe\tPRON\t_\t_\t2\tnsubj\t_\t_\n"
    "2\tgave\tgive\tVERB\t_\t_\t0\troot\t_\t_\n"
    "3\thim\the\tPRON\t_\t_\t2\tiobj\t_\t_\n"
    "4-5\tabook\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "4\ta\ta\tDET\t_\t_\t5\tdet\t_\t_\n"
    "5\tbook\tbook\tNOUN\t_\t_\t2\tobj\t_\t_\n"
    "5.1\tgave\tgive\tVERB\t_\t_\t_\t_\t2:conj\t_\n"
    "6\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_\n"
    "\n";

}  // namespace aw::test
