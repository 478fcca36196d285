#!/usr/bin/env bash
# tests/support/reproduce_check.sh — ctest reproduce.quick: scripts/study/reproduce.sh --quick end to end into a
# scratch folder, then the report it wrote: every section there (Michel's held-out head choice among them), Table 1 over the recorded seeds, every figure it links a PNG that
# exists, no number left unformatted ("nan", "inf"), no temporary path in the outputs; the quick runs
# listed as recorded runs.
#   reproduce_check.sh <source dir> <out dir> <attention-cli> <attention-plot>
set -euo pipefail
source_dir=$1 out=$2
rm -rf "$out"
AW_CLI=$3 AW_PLOT=$4 bash "$source_dir/scripts/study/reproduce.sh" --quick --out "$out"
report=$out/results.md
for heading in "## The models" "## The recorded runs" '| `transformer_lm` | 2 | perplexity ' "## Bird-Eye Table 1" "Over training runs: Ratio ÷ uniform of each recorded seed" "## Bird-Eye Table 2" "## Bird-Eye Table 3" \
               "## Bird-Eye Figure 3" "## Michel et al." "### Table 1: each head switched off alone" \
               "### Table 2: only the best head" "### Tables 5–6: the head chosen on held-out text" "head chosen on the first validation pairs" "### Figure 3: pruning heads in order" "### Table 4: real pruning" "### Figure 2: the same heads" "### Figure 4: pruning one attention kind" "## The papers side by side" \
               "## LAMA" "### Each head on its own" "## Translation models" "Quick mode"; do
  grep -q -F "$heading" "$report" || { echo "reproduce_check: '$heading' missing from $report" >&2; exit 1; }
done
# Table 1 over the two recorded seeds of bet_sf (each record keeps its Table 1): mean ± sd, each seed, how many above 1.
grep -q -E '^\| `bet_sf` \| 1 \| [0-9.]+ ± [0-9.]+ \| [0-9.]+, [0-9.]+ \| [0-2] of 2 \|$' "$report" ||
  { echo "reproduce_check: no Table 1 row over bet_sf's two seeds in $report" >&2; exit 1; }
figures=$(grep -o '](results/[^)]*\.png)' "$report" | sed 's/^](//; s/)$//')
[ "$(echo "$figures" | wc -l)" -ge 7 ] || { echo "reproduce_check: fewer than 7 figures linked" >&2; exit 1; }
for f in $figures; do
  head -c 4 "$out/$f" | grep -q PNG || { echo "reproduce_check: $out/$f is not a PNG" >&2; exit 1; }
done
# The slices live in a temporary folder that is gone afterwards: the outputs name them slice/FILE.
if grep -r -l "aw-reproduce\." "$out/results"; then echo "reproduce_check: a temporary path left in the outputs above" >&2; exit 1; fi
if grep -n -i -E '\b(nan|inf)\b' "$report"; then echo "reproduce_check: unformatted number in $report" >&2; exit 1; fi
echo "reproduce_check: $report has every section and $(echo "$figures" | wc -l) figures"
