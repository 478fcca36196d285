#!/usr/bin/env bash
# Trains the sample checkpoints in sample_data/ from WikiText-2 in ../shared/data/ (see
# sample_data/README.md). Every model gets the same data, sizes, budget and seed; only --arch
# (and the diagonal options) differ. Usage: scripts/train-samples.sh [extra train options]
# Needs a built build/app/attention-cli (scripts/build.sh). About 10 minutes per model on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=build/app/attention-cli
data=${AW_SHARED_DATA:-../shared/data}/wikitext-2
[ -x "$cli" ] || { echo "train-samples: build first (scripts/build.sh)" >&2; exit 1; }
[ -f "$data/valid.txt" ] || { echo "train-samples: $data/valid.txt not found" >&2; exit 1; }

# WikiText-2's train split is not shipped here: train on its valid split, and split its test split
# into a validation part (first 1000 lines, for picking the best epoch) and a held-out part.
split=build/sample_split
mkdir -p "$split"
head -n 1000 "$data/test.txt" > "$split/valid.txt"
tail -n +1001 "$data/test.txt" > "$split/test.txt"

common=(--train "$data/valid.txt" --valid "$split/valid.txt" --layers 2 --heads 4 --d-model 128
        --d-ff 512 --window 64 --epochs 8 --batch 16 --lr 1e-3 --warmup 200 --dropout 0.1
        --min-count 3 --seed 1 --f16 --threads "${AW_THREADS:-2}" --log-every 100)

train() {  # train <name> <options...>: trains into build/samples/<name>, copies the best epoch
  local name=$1; shift
  echo "== $name"
  rm -rf "build/samples/$name"
  "$cli" train "${common[@]}" "$@" --out "build/samples/$name"
  rm -rf "sample_data/$name"
  mkdir -p "sample_data/$name"
  cp "build/samples/$name/best/"* "sample_data/$name/"
  "$cli" eval --model "sample_data/$name" --text "$split/test.txt" --window 64
}

train vanilla_lm --arch transformer_lm "$@"
train bet_sf --arch bet_sf "$@"
