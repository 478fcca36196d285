#!/usr/bin/env python3
"""How often BET(SG)'s syntax hint is the current token itself, on a CoNLL-U file, and why.

    scripts/study/bet_sg_hints.py FILE.conllu [--json]

The hint follows docs/training.md (the paper's §3.1): while position t predicts x_{t+1}, the hint is the
nearest ancestor of x_{t+1} in the dependency tree standing at a position ≤ t; without one it is t itself,
as it is for a sentence's last word and its <eos>. A hint at t itself is a target on the diagonal, which a
diagonal-free mask would make unreachable. Each position is counted once, under the first reason that holds:
  ancestor_at_t    the nearest left ancestor of x_{t+1} is x_t (a real hint that happens to be the diagonal)
  no_left_ancestor x_{t+1} is the root or every ancestor stands to its right (the paper's fall-back)
  sentence_end     the last word (predicting <eos>) and <eos> (predicting the next sentence)
  earlier          the hint is an earlier word (off the diagonal)
Window cuts (the hint left in an earlier window) are not counted: they depend on the windows.
Standard library only.
"""
import json
import sys


def sentences(path):
    """Each sentence's heads, 1-based (0 = root), skipping multiword ranges and empty nodes."""
    heads = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if heads:
                    yield heads
                heads = []
                continue
            if line.startswith("#"):
                continue
            columns = line.split("\t")
            if len(columns) < 7 or not columns[0].isdigit():
                continue
            heads.append(int(columns[6]) if columns[6].isdigit() else 0)
    if heads:
        yield heads


def count(path):
    counts = {"ancestor_at_t": 0, "no_left_ancestor": 0, "sentence_end": 0, "earlier": 0}
    for heads in sentences(path):
        n = len(heads)
        for t in range(1, n):  # word t (1-based) predicts word t + 1
            node, hint = t + 1, None
            while heads[node - 1] != 0:
                node = heads[node - 1]
                if node <= t:
                    hint = node
                    break
            if hint is None:
                counts["no_left_ancestor"] += 1
            elif hint == t:
                counts["ancestor_at_t"] += 1
            else:
                counts["earlier"] += 1
        counts["sentence_end"] += 2  # the last word and <eos>
    total = sum(counts.values())
    return {"file": path, "positions": total, "counts": counts,
            "self_share": (total - counts["earlier"]) / total if total else 0.0}


def main():
    args = [a for a in sys.argv[1:] if a != "--json"]
    if len(args) != 1:
        sys.exit("usage: bet_sg_hints.py FILE.conllu [--json]")
    try:
        result = count(args[0])
    except OSError as error:
        sys.exit(f"bet_sg_hints: {error}")
    if result["positions"] == 0:
        sys.exit(f"bet_sg_hints: {args[0]}: no CoNLL-U word lines")
    if "--json" in sys.argv:
        print(json.dumps(result, indent=2))
        return
    for reason, n in result["counts"].items():
        print(f"{reason:18s} {n:8d}  {100 * n / result['positions']:5.1f} %")
    print(f"hint on the diagonal: {100 * result['self_share']:.1f} % of {result['positions']} positions")


if __name__ == "__main__":
    main()
