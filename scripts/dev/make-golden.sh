#!/usr/bin/env bash
# Regenerates tests/golden/ from tests/golden/cases.txt with a built attention-cli. Run it only when
# a CSV is meant to change (say why in the commit); the golden tests compare every run with these.
# Usage: scripts/dev/make-golden.sh [path/to/attention-cli]   (default build/app/attention-cli)
set -euo pipefail
cd "$(dirname "$0")/../.."
cli=${1:-build/app/attention-cli}
samples=$PWD/sample_data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
while IFS=$'\t' read -r name outputs arguments _tolerance; do  # the fourth field is golden_compare's
  case "$name" in ''|'#'*) continue ;; esac
  out=$work/$name
  mkdir -p "$out"
  args=()
  for word in $arguments; do
    word=${word//@S@/$samples}
    word=${word//@O@/$out}
    args+=("${word//^/ }")
  done
  "$cli" "${args[@]}" > /dev/null 2> "$out.log" || { cat "$out.log"; echo "make-golden: $name failed" >&2; exit 1; }
  IFS=, read -ra files <<< "$outputs"
  for file in "${files[@]}"; do cp "$out/$file" "tests/golden/$name.${file//\//_}"; done
  echo "make-golden: $name"
done < tests/golden/cases.txt
