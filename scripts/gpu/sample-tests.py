#!/usr/bin/env python3
"""The ctest tests that read a sample model whose weights are not there, for `ctest -E`.

    scripts/gpu/sample-tests.py BUILD_DIR [SAMPLES_DIR]

A sample model is missing when SAMPLES_DIR (default sample_data) has its folder and config.json but no
model.safetensors: on a lent GPU machine after scripts/gpu/device-tree.sh slim, which keeps the two big
word-level LMs out of what travels (CMake still reads their config.json). A test needs one when its
command names the folder (sample_data/NAME or golden's @S@/NAME: the cli.samples_*, distributed.* and
golden.* tests) or it is the core suite's SampleCheckpoint instance for it.

Prints three lines: the missing folders' names (space-separated; empty when none), how many tests
need them, and an anchored regex of those tests' exact names for `ctest -E` (empty when none).
Standard library only.
"""
import json
import os
import re
import subprocess
import sys


def cmake_escape(name):
    # CMake's regexes take a backslash before any special character as that character.
    return re.sub(r"([][.*+?^$|()\\{}])", r"\\\1", name)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: sample-tests.py BUILD_DIR [SAMPLES_DIR]")
    build = sys.argv[1]
    samples = sys.argv[2] if len(sys.argv) == 3 else "sample_data"
    missing = sorted(
        name for name in os.listdir(samples)
        if os.path.isfile(os.path.join(samples, name, "config.json"))
        and not os.path.isfile(os.path.join(samples, name, "model.safetensors")))
    if not missing:
        print("\n0\n")
        return
    listing = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"],
                             check=True, capture_output=True, text=True).stdout
    # sample_data/NAME or @S@/NAME, not followed by more of a folder name (bet_sf vs bet_sf_x).
    folder = re.compile(r"(?:sample_data|@S@)/(" + "|".join(map(re.escape, missing)) + r")(?![\w.-])")
    names = []
    for test in json.loads(listing).get("tests", []):
        name = test.get("name", "")
        if any(folder.search(argument) for argument in test.get("command", [])) or \
                ("SampleCheckpoint" in name and any(f'"{m}"' in name or name.endswith("/" + m) for m in missing)):
            names.append(name)
    print(" ".join(missing))
    print(len(names))
    print("^(" + "|".join(cmake_escape(n) for n in names) + ")$" if names else "")


if __name__ == "__main__":
    main()
