#!/usr/bin/env python3
"""Michel Table 4's timings: examples per second of the full and the really pruned model, in paired rounds.

    scripts/study/time_pruning.py CLI TEXT WINDOW FULL PRUNED ROUNDS > pruning_speed.csv

Each round times both models once per batch size (1, 4, 16, 64) with `attention-cli eval --json`, whose
`seconds` are the forward passes alone (loading and reading the text excluded). Within a round the two
models run back to back, the first of them alternating from round to round, so a load that comes and goes
on the machine, and any drift over the run, falls on both alike: a round is the unit the report's paired
test resamples (scripts/study/results/paired_timing.py). One CSV row per model, batch size and round.
Standard library only.
"""
import json
import subprocess
import sys

BATCHES = (1, 4, 16, 64)


def run_json(args):
    """The JSON a CLI command prints; a failed command ends the script with its own last error line."""
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        sys.exit(f"time_pruning: {' '.join(args[1:4])}: {lines[-1] if lines else f'exit {done.returncode}'}")
    return json.loads(done.stdout)


def main():
    if len(sys.argv) != 7:
        sys.exit("usage: time_pruning.py CLI TEXT WINDOW FULL PRUNED ROUNDS")
    cli, text, window, full, pruned, rounds = sys.argv[1:]
    if not rounds.isdigit() or int(rounds) < 1:
        sys.exit(f"time_pruning: ROUNDS must be a positive whole number, got '{rounds}'")
    models = {"full": full, "pruned_50": pruned}
    info = {name: run_json([cli, "info", "--model", folder, "--json"]) for name, folder in models.items()}
    print("model,heads,parameters,batch,round,examples,seconds")
    for batch in BATCHES:
        for round_ in range(1, int(rounds) + 1):
            order = list(models) if round_ % 2 else list(reversed(list(models)))
            for name in order:
                out = run_json([cli, "eval", "--model", models[name], "--text", text, "--window", window,
                                "--batch", str(batch), "--json"])
                print(f"{name},{sum(info[name]['heads_per_layer'])},{info[name]['parameters']},{batch},{round_},"
                      f"{out['examples']},{out['seconds']:.5f}", flush=True)


if __name__ == "__main__":
    main()
