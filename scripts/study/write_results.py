#!/usr/bin/env python3
"""Writes docs/results.md from the CSVs and figures scripts/study/reproduce.sh leaves in its results folder.

Every number in the report comes from those files; every sentence that reads a result is built from
the numbers it reads (a difference is called significant only when its test says so), so rerunning
reproduce.sh on new models rewrites the text with them. The papers' own numbers are quoted where we
could read them (results/papers.py, with their source); where we could not, the report says so.
Standard library only: the report must be writable on a fresh Debian machine. The sections live in
the results/ package beside this file (one module per group of sections); this is the command.
"""
import argparse
import os
import sys

from results.report import Report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--samples", default="sample_data")
    parser.add_argument("--mode", choices=["full", "quick"], default="full")
    parser.add_argument("--seconds", type=float, default=0.0)
    parser.add_argument("--records", default="", help="the runs train-models.sh recorded (docs/results/runs)")
    args = parser.parse_args()
    if not os.path.isdir(args.results):
        sys.exit(f"write_results: {args.results}: no such folder (scripts/study/reproduce.sh writes it)")
    Report(args.results, args.out, args.samples, args.mode, args.seconds, args.records).write()


if __name__ == "__main__":
    main()
