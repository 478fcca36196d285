#!/usr/bin/env bash
# Renders every tab of the sample session at 1,366 × 768 (offscreen, each tab's analysis run first) into
# docs/images/tab_ID_1366.png: the table of docs/window.md ("Every tab at 1,366 × 768"). Look at each.
# Usage: scripts/dev/make-screenshots.sh [BUILD/app/attention-workbench] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
app=${1:-build/app/attention-workbench} out=${2:-docs/images}
export QT_QPA_PLATFORM=offscreen
mkdir -p "$out"
# TAB:ID — the tab shown (--tab N) and the analysis run there; the Circuits tab (8) holds path-patch, eap
# composition and token-attribution as inner tabs, each shown as it runs (8.4 is its Circuit view). The Attention tab runs its sentence.
shots=(0:attention 1:stats 2:ablate 3:importance 4:prune 5:top-tokens 6:head-types 7:patch 8:path-patch 8:eap
       8:composition 8:token-attribution 9:retrieval-heads 10:logit-lens 11:diag-sweep 12:training 13:word-weights)
for shot in "${shots[@]}"; do
  tab=${shot%%:*} id=${shot#*:}
  run=()
  [ "$id" = attention ] || run=(--run "$id")
  "$app" --sample-data sample_data --fresh "${run[@]}" --tab "$tab" --size 1366x768 --screenshot "$out/tab_${id}_1366.png" \
    >/dev/null 2>&1 || { echo "make-screenshots: the $id tab failed"; exit 1; }
  echo "make-screenshots: $out/tab_${id}_1366.png"
done
