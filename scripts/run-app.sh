#!/usr/bin/env bash
# README command 1: install what is missing, build, and launch the workbench on sample_data/.
# Without a display (or without Qt) it runs the headless CLI on the bundled sample model instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DWITH_TESTS=OFF -DWITH_BENCH=OFF -DUNITY_LIBRARIES=ON
if [ -x build/app/attention-workbench ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ] || [ -n "${QT_QPA_PLATFORM:-}" ]; }; then
  exec build/app/attention-workbench --sample-data sample_data "$@"
fi
echo "run-app: no display (or no GUI build); showing the sample model in the terminal instead" >&2
model=$(ls -d sample_data/*/ 2>/dev/null | head -n 1)
if [ -z "$model" ]; then
  echo "run-app: sample_data/ holds no checkpoint yet" >&2
  exit 1
fi
build/app/attention-cli info --model "$model"
sentence=$(head -n 1 sample_data/demo_sentences.txt)
exec build/app/attention-cli attend --model "$model" --text "$sentence"
