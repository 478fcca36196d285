#!/usr/bin/env python3
"""Writes the demo inputs of the positive-control model sample_data/induction_lm (docs/head-types.md):

  sample_data/induction_pairs.tsv     patch pairs: clean = w1 … wK w1 … w(K-1), answer wK; corrupted = the
                                      same with the first copy's wK replaced by Z, foil Z (the copy now says Z)
  sample_data/induction_haystack.txt  retrieval-heads haystack: lines of random words of the model's vocabulary
  sample_data/induction_needles.txt   retrieval-heads needles: eight random words a line

Usage: python3 scripts/study/make_induction_demos.py   (standard library only; seeded, so a rerun writes
the same files)
"""
import os
import random

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SAMPLES = os.path.join(ROOT, "sample_data")


def main():
    with open(os.path.join(SAMPLES, "induction_lm", "vocab.txt"), encoding="utf-8") as f:
        words = [w.strip() for w in f if w.strip() and not w.startswith("<")]
    generator = random.Random(11)
    pairs = []
    for _ in range(32):
        k = generator.randint(6, 12)
        drawn = generator.sample(words, k + 1)
        sequence, replacement = drawn[:k], drawn[k]
        clean = sequence + sequence[:-1]
        corrupted = sequence[:-1] + [replacement] + sequence[:-1]
        pairs.append("\t".join([" ".join(clean), " ".join(corrupted), sequence[-1], replacement]))
    with open(os.path.join(SAMPLES, "induction_pairs.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(pairs) + "\n")
    lines = [" ".join(generator.choice(words) for _ in range(generator.randint(8, 20))) for _ in range(40)]
    with open(os.path.join(SAMPLES, "induction_haystack.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    needles = [" ".join(generator.sample(words, 8)) for _ in range(4)]
    with open(os.path.join(SAMPLES, "induction_needles.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(needles) + "\n")


if __name__ == "__main__":
    main()
