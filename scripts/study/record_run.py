#!/usr/bin/env python3
"""Writes one training run's record: its `attention-cli eval --json` result on the test split with the
run's training summary (the scalar fields of its training.json) and variant name, as one JSON file.

    scripts/study/record_run.py TEST_JSON TRAINING_JSON VARIANT OUT

`attention-cli compare` takes such a file in place of the run's model folder, so a run counts after its
weights are gone (scripts/study/train-models.sh keeps the records in docs/results/runs/). The file appears
whole or not at all. Standard library only.
"""
import json
import os
import sys


def best_epoch(state):
    """The epoch whose validation score is the run's best (the one its best/ checkpoint holds), from the
    per-epoch history; None without one. training.json's own "epoch" is the last epoch trained."""
    history = state.get("history")
    epochs = history.get("epochs", []) if isinstance(history, dict) else []
    for metric in ("perplexity", "accuracy"):
        best = state.get(f"best_valid_{metric}")
        for entry in epochs:
            if best is not None and entry.get(f"valid_{metric}") == best:
                return entry.get("epoch")
    return None


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: record_run.py TEST_JSON TRAINING_JSON VARIANT OUT")
    test, training, variant, out = sys.argv[1:]
    try:
        with open(test, encoding="utf-8") as f:
            record = json.load(f)
        with open(training, encoding="utf-8") as f:
            state = json.load(f)
    except (OSError, ValueError) as error:
        sys.exit(f"record_run: {error}")
    summary = {k: v for k, v in state.items() if not isinstance(v, (dict, list))}
    epoch = best_epoch(state)
    if epoch is not None:
        summary["best_epoch"] = epoch
    record.update({"variant": variant, "training": summary})
    part = out + ".part"
    with open(part, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(part, out)


if __name__ == "__main__":
    main()
