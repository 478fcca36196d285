#!/usr/bin/env bash
# Renders every tab of the sample session at 1,366 × 768 (offscreen, each tab's analysis run first) into
# docs/images/tab_ID_1366.png: the table of docs/window.md ("Every tab at 1,366 × 768"). Look at each.
# Usage: scripts/dev/make-screenshots.sh [BUILD/app/attention-workbench] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
app=${1:-build/app/attention-workbench} out=${2:-docs/images}
export QT_QPA_PLATFORM=offscreen
mkdir -p "$out"
# The tabs in their order (--tab N), by the analysis each runs; the Attention tab runs its sentence.
ids=(attention stats ablate importance prune top-tokens head-types patch retrieval-heads logit-lens diag-sweep training word-weights)
for tab in "${!ids[@]}"; do
  id=${ids[$tab]}
  run=()
  [ "$id" = attention ] || run=(--run "$id")
  "$app" --sample-data sample_data --fresh "${run[@]}" --tab "$tab" --size 1366x768 --screenshot "$out/tab_${id}_1366.png" \
    >/dev/null 2>&1 || { echo "make-screenshots: the $id tab failed"; exit 1; }
  echo "make-screenshots: $out/tab_${id}_1366.png"
done
