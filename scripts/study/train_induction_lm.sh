#!/usr/bin/env bash
# Trains the induction positive control, sample_data/induction_lm/: a tiny word-level transformer LM
# (2 layers × 4 heads, d_model 64, d_ff 256, 64 positions, 0.12 M parameters) on a synthetic corpus
# of random words each followed by a repeat of itself (scripts/study/make_induction_corpus.py), where
# the second half is predictable only by copying. The study models in sample_data/ show no induction
# head; this one does, so `head-types` has a model to find one in.
#
#   scripts/study/train_induction_lm.sh [--cli PATH] [--out DIR] [--data DIR] [--threads N]
#                                       [--epochs N] [--seed S]
#
#   --cli PATH    the attention-cli to use (default build/app/attention-cli)
#   --out DIR     the model folder, replaced (default build/induction_lm;
#                 sample_data/induction_lm for the bundled copy)
#   --data DIR    where the corpus is written (default ${TMPDIR:-/tmp}/induction: 7.4 MB, not committed)
#   --threads N   compute threads (default 2; the weights are bit-identical for the same seed and
#                 thread count, docs/training.md)
#   --epochs N    default 5
#   --seed S      the training seed (default 1; the corpus is always generated with seed 1)
#
# Relative paths are read from the folder the script is started in. It generates the corpus, trains,
# keeps the best epoch's checkpoint (config.json, model.safetensors in F16, vocab.txt, training.json;
# the resume state and best/ are removed: the folder is about 0.26 MB), then prints the validation
# perplexity beside the corpus's two reference perplexities, and the head-types table on the generated
# repeated sequences and on the validation text. It exits with status 1 when no head's induction score
# on the generated sequences exceeds 0.3 (no induction head formed: train longer).
#
# Why these settings: the loss sits on a plateau near ln 300 (no copying) until a previous-token head
# in layer 1 and an induction head in layer 2 form together; then it drops within about a thousand
# steps to near the copying reference. With batch 16 and a peak learning rate of 1e-3 held for long
# (warm-up 3000 steps, then inverse-square-root decay) it left the plateau between steps 3000 and 4500
# on seeds 1 and 2. Tried on seed 1 and worse: warm-up 200 (validation perplexity 221 at step 8900) or
# 2000 (leaving it only at step 5000–6000), peak 2e-3 or 3e-3, batch 8 (perplexity 208 at step
# 8900), sinusoidal positions (no progress in 8900 steps), d_model 128 (no faster per step, slower per
# second). About 3 minutes on 2 cores.
set -euo pipefail
here=$(pwd)
cd "$(dirname "$0")/../.."
root=$(pwd)

absolute() {  # absolute <path>: normalised, a relative path read from the folder the script was started in
  (cd "$here" && realpath -m -- "$1")
}

cli=$root/build/app/attention-cli
out=$root/build/induction_lm
data=${TMPDIR:-/tmp}/induction
threads=2
epochs=5
seed=1
while [ $# -gt 0 ]; do
  case "$1" in
    --cli|--out|--data|--threads|--epochs|--seed)
      [ $# -ge 2 ] || { echo "train_induction_lm: $1 needs a value" >&2; exit 2; } ;;
  esac
  case "$1" in
    --cli) cli=$(absolute "$2"); shift 2 ;;
    --out) out=$(absolute "$2"); shift 2 ;;
    --data) data=$(absolute "$2"); shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --epochs) epochs=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "train_induction_lm: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$cli" ] || { echo "train_induction_lm: $cli not found or not executable (build first: scripts/build.sh, or --cli PATH)" >&2; exit 1; }
case "$root/" in "$out"/*) echo "train_induction_lm: --out $out holds the repository; it is replaced, so give a new folder" >&2; exit 2 ;; esac

window=64
echo "== corpus → $data" >&2
corpus=$(python3 scripts/study/make_induction_corpus.py "$data" --window "$window" --seed 1 2>&1) ||
  { printf '%s\n' "$corpus" >&2; exit 1; }
printf '%s\n' "$corpus" >&2
reference=$(printf '%s\n' "$corpus" |
  sed -n 's/^valid: .*: \([0-9.]*\) without copying, \([0-9.]*\) copying perfectly$/\1 without copying, \2 copying perfectly/p')

echo "== training → $out" >&2
rm -rf "$out"
start=$(date +%s)
"$cli" train --arch transformer_lm --train "$data/train.txt" --valid "$data/valid.txt" --out "$out" \
  --layers 2 --heads 4 --d-model 64 --d-ff 256 --window "$window" \
  --epochs "$epochs" --batch 16 --lr 1e-3 --warmup 3000 --schedule inverse_sqrt --dropout 0 --clip 1.0 \
  --seed "$seed" --min-count 1 --threads "$threads" --log-every 500 --f16
seconds=$(( $(date +%s) - start ))

# Keep only what loading needs, and training.json: the best epoch's checkpoint replaces the last one
# (they are the same when the last epoch was the best); drop best/ and the resume state.
if [ -d "$out/best" ]; then
  cp "$out/best/config.json" "$out/best/model.safetensors" "$out/best/vocab.txt" "$out/best/training.json" "$out/"
  rm -rf "$out/best"
fi
rm -f "$out/training_state.pt"

perplexity=$("$cli" eval --model "$out" --text "$data/valid.txt" --window "$window" --threads "$threads" --json 2>/dev/null |
  sed -n 's/^ *"perplexity": \([0-9.]*\),\{0,1\}$/\1/p')
echo
printf 'trained in %s s; validation perplexity %.2f (reference: %s); folder %s KB\n' \
  "$seconds" "$perplexity" "$reference" "$(du -sk "$out" | cut -f1)"
echo
echo "== head-types on the generated repeated random sequences (induction and every other score)"
table=$("$cli" head-types --model "$out" --threads "$threads" 2>/dev/null)
printf '%s\n' "$table"
echo
echo "== head-types on $data/valid.txt (induction still on the generated sequences)"
"$cli" head-types --model "$out" --text "$data/valid.txt" --window "$window" --threads "$threads" 2>/dev/null
echo

# layer,head,previous_token,duplicate_token,induction,sink,entropy,self
summary=$(printf '%s\n' "$table" | awk -F, '
  /^#/ || $1 == "layer" { next }
  $5 + 0 > best { best = $5 + 0; where = $1 "." $2 }
  $5 + 0 > 0.3 { induction = induction " " $1 "." $2 " (" $5 ")" }
  $3 + 0 > 0.3 { previous = previous " " $1 "." $2 " (" $3 ")" }
  END {
    printf "induction heads (score > 0.3):%s\n", induction == "" ? " none" : induction
    printf "previous-token heads (score > 0.3):%s\n", previous == "" ? " none" : previous
    printf "largest induction score %s (head %s)\n", best, where
    exit best > 0.3 ? 0 : 1
  }') && formed=1 || formed=0
printf '%s\n' "$summary"
if [ "$formed" = 0 ]; then
  echo "train_induction_lm: no induction head formed; train longer (--epochs) or try another --seed" >&2
  exit 1
fi
