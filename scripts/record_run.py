#!/usr/bin/env python3
"""Writes one training run's record: its `attention-cli eval --json` result on the test split with the
run's training summary (the scalar fields of its training.json) and variant name, as one JSON file.

    scripts/record_run.py TEST_JSON TRAINING_JSON VARIANT OUT

`attention-cli compare` takes such a file in place of the run's model folder, so a run counts after its
weights are gone (scripts/train-models.sh keeps the records in docs/results/runs/). The file appears
whole or not at all. Standard library only.
"""
import json
import os
import sys


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: record_run.py TEST_JSON TRAINING_JSON VARIANT OUT")
    test, training, variant, out = sys.argv[1:]
    try:
        with open(test, encoding="utf-8") as f:
            record = json.load(f)
        with open(training, encoding="utf-8") as f:
            summary = {k: v for k, v in json.load(f).items() if not isinstance(v, (dict, list))}
    except (OSError, ValueError) as error:
        sys.exit(f"record_run: {error}")
    record.update({"variant": variant, "training": summary})
    part = out + ".part"
    with open(part, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(part, out)


if __name__ == "__main__":
    main()
