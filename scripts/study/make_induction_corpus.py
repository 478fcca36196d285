#!/usr/bin/env python3
"""Writes a synthetic corpus on which copying pays: the training text of the induction positive control
(sample_data/induction_lm/, made by scripts/study/train_induction_lm.sh).

    scripts/study/make_induction_corpus.py OUT_DIR [--vocab 300] [--train-lines 40000]
        [--valid-lines 2000] [--min-length 6] [--max-length 31] [--window 64] [--seed 1]

Each line is a run of K distinct words drawn at random from a made-up vocabulary of pronounceable
syllable words, then the same K words again (K uniform in [--min-length, --max-length]):

    dabo kelu rimo ... sute dabo kelu rimo ... sute

The first half is unpredictable (about ln V nats a word for any model); the second half is predictable
only by copying from the first, which is what an induction head does: at a repeated word, attend to the
word that followed its earlier copy. The trainer ends each line with <eos> and cuts the text into
consecutive windows (docs/training.md), so a window starts anywhere in a line; with 2K + 1 ≤ 63 a whole
line fits a 64-token window. OUT_DIR gets train.txt, valid.txt (different lines, from one seeded
generator) and words.txt (the vocabulary, one word a line). Deterministic: the same options give the
same bytes. It prints, per file, its size and two reference perplexities at --window (without
copying, copying perfectly; see reference_perplexities). Standard library only.
"""
import argparse
import math
import os
import random
import sys

ONSETS = "b d f g k l m n p r s t v z".split()
VOWELS = "a e i o u".split()


def make_vocabulary(size, rng):
    """`size` distinct two-syllable words (each syllable a consonant and a vowel), in a seeded order."""
    syllables = [c + v for c in ONSETS for v in VOWELS]  # 70 syllables
    two = [a + b for a in syllables for b in syllables]  # 4,900 words
    if size > len(two):
        raise SystemExit(f"make_induction_corpus: --vocab {size} is more than the {len(two)} words available")
    return rng.sample(two, size)


def make_lines(count, words, min_length, max_length, rng):
    lines = []
    for _ in range(count):
        k = rng.randint(min_length, max_length)
        first = rng.sample(words, k)  # distinct within the half: every copy has one source
        lines.append(first + first)
    return lines


def reference_perplexities(lines, vocab, window):
    """Two yardsticks for the perplexity `attention-cli eval --window W` reports on these lines: the
    text with <eos> after each line, cut into consecutive W-token windows, every token but a window's
    first one predicted from the tokens before it in its window.
      guess: a model that never copies: every word costs ln V, <eos> nothing;
      copy:  a model that copies perfectly: as `guess`, except that a second-half word whose first-half
             copy lies in the same window costs nothing (the first word of the repeat still costs
             ln V: where the repeat begins is not predictable).
    Returns (guess, copy). Neither is a strict bound (a model may also learn that a first half never
    repeats a word, a gain under 1 %), but a perplexity near `copy` says the model copies, and one
    near `guess` says it does not."""
    position = 0
    guess_nats = copy_nats = 0.0
    predicted = 0
    cost = math.log(vocab)
    for line in lines:
        k = len(line) // 2
        for i in range(len(line) + 1):  # the words, then <eos>
            p = position + i
            if p % window == 0:
                continue  # a window's first token is not predicted
            predicted += 1
            if i == len(line):
                continue  # <eos>: free for both
            guess_nats += cost
            copyable = i > k and (p - k) // window == p // window
            if not copyable:
                copy_nats += cost
        position += len(line) + 1
    return math.exp(guess_nats / predicted), math.exp(copy_nats / predicted)


def write(path, lines):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(" ".join(line) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--vocab", type=int, default=300, help="made-up words (default 300)")
    parser.add_argument("--train-lines", type=int, default=40000)
    parser.add_argument("--valid-lines", type=int, default=2000)
    parser.add_argument("--min-length", type=int, default=6, help="shortest first half K (default 6)")
    parser.add_argument("--max-length", type=int, default=31, help="longest first half K (default 31)")
    parser.add_argument("--window", type=int, default=64, help="the window of the reference perplexities (default 64)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.vocab < 1 or args.train_lines < 1 or args.valid_lines < 1 or args.window < 2:
        parser.error("need --vocab, --train-lines and --valid-lines of at least 1 and --window of at least 2")
    if not 1 <= args.min_length <= args.max_length:
        parser.error("need 1 <= --min-length <= --max-length")
    if args.max_length > args.vocab:
        parser.error("--max-length must not exceed --vocab (the words of a half are distinct)")

    rng = random.Random(args.seed)
    words = make_vocabulary(args.vocab, rng)
    train = make_lines(args.train_lines, words, args.min_length, args.max_length, rng)
    valid = make_lines(args.valid_lines, words, args.min_length, args.max_length, rng)

    os.makedirs(args.out_dir, exist_ok=True)
    write(os.path.join(args.out_dir, "train.txt"), train)
    write(os.path.join(args.out_dir, "valid.txt"), valid)
    with open(os.path.join(args.out_dir, "words.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(words) + "\n")

    for name, lines in (("train", train), ("valid", valid)):
        tokens = sum(len(line) + 1 for line in lines)
        guess, copy = reference_perplexities(lines, args.vocab, args.window)
        print(f"{name}: {len(lines)} lines, {tokens} tokens with <eos>; reference perplexity at window "
              f"{args.window}: {guess:.1f} without copying, {copy:.1f} copying perfectly", file=sys.stderr)


if __name__ == "__main__":
    main()
