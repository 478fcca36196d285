#!/usr/bin/env bash
# bench/engine-vs-hf.sh — whole processes, ours against Hugging Face's, on a Qwen2-0.5B-layout model (random
# weights): `attention-cli eval` (F32, BF16), `attention-cli stats` and the plainest forward, each beside
# bench/hf_whole_process.py's matching mode, over the same 16 windows of 512 tokens of WikiText-2's test
# split, batch 4, 2 threads, on the CPU. Each run is timed with /usr/bin/time (wall seconds, peak RSS);
# ROUNDS paired rounds, the side that goes first alternating per round; the table gives medians.
#
#   bench/engine-vs-hf.sh            (after a build: build/app/attention-cli; Python in .venv)
#
# Environment (defaults in brackets):
#   MODEL_DIR [/tmp/aw-qwen2-0.5b-layout]  made once (config, model.safetensors in F32, tokenizer.json) and
#                                          reused while its aw-layout.txt names the same layout
#   LAYERS [24] HIDDEN [896] HEADS [14] KV_HEADS [2] INTERMEDIATE [4864] VOCAB [151936]   the layout
#   BPE_VOCAB [32000]                      the byte-level BPE trained on WikiText-2's train split
#   WIKITEXT [../shared/data/wikitext-2]   its train.txt and test.txt
#   ROUNDS [3]   MODES ["eval-f32 eval-bf16 stats-f32 forward-sdpa"]
#   OUT [/tmp/hfbench/engine-vs-hf.txt]    the table (also on stdout); every run's log in OUT.logs/
#
# The CLI has no option that limits windows or tokens, so both sides read a copy of the test split cut to
# exactly 16 × 512 tokens of this tokenizer (MODEL_DIR/test-16x512.txt). Its plainest forward over windows
# is `eval` (forward + loss; `attend` takes one sequence and keeps attention), so "forward-sdpa" puts
# `attention-cli eval` beside Hugging Face's SDPA logits forward with the loss taken from the logits.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=.venv/bin/python
CLI=build/app/attention-cli
TIME=/usr/bin/time
[[ -x $PY ]] || { echo "error: $PY is missing (make the virtual environment with torch and transformers first)" >&2; exit 1; }
[[ -x $CLI ]] || { echo "error: $CLI is missing (build the project first: cmake --build build)" >&2; exit 1; }
[[ -x $TIME ]] || { echo "error: $TIME is missing (apt-get install time)" >&2; exit 1; }

MODEL_DIR=${MODEL_DIR:-/tmp/aw-qwen2-0.5b-layout}
LAYERS=${LAYERS:-24} HIDDEN=${HIDDEN:-896} HEADS=${HEADS:-14} KV_HEADS=${KV_HEADS:-2}
INTERMEDIATE=${INTERMEDIATE:-4864} VOCAB=${VOCAB:-151936} BPE_VOCAB=${BPE_VOCAB:-32000}
WIKITEXT=${WIKITEXT:-../shared/data/wikitext-2}
ROUNDS=${ROUNDS:-3}
MODES=${MODES:-eval-f32 eval-bf16 stats-f32 forward-sdpa}
OUT=${OUT:-/tmp/hfbench/engine-vs-hf.txt}
WINDOWS=16 WINDOW=512 BATCH=4 THREADS=2
export MODEL_DIR LAYERS HIDDEN HEADS KV_HEADS INTERMEDIATE VOCAB BPE_VOCAB WIKITEXT WINDOWS WINDOW

for split in train test; do
  [[ -f $WIKITEXT/$split.txt ]] || { echo "error: $WIKITEXT/$split.txt is missing (set WIKITEXT to the WikiText-2 folder)" >&2; exit 1; }
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "error: ROUNDS must be a positive integer, got '$ROUNDS'" >&2; exit 1; }
for mode in $MODES; do
  case $mode in eval-f32|eval-bf16|stats-f32|forward-sdpa) ;; *) echo "error: unknown mode '$mode' in MODES" >&2; exit 1 ;; esac
done

LAYOUT="qwen2 layers=$LAYERS hidden=$HIDDEN heads=$HEADS kv_heads=$KV_HEADS intermediate=$INTERMEDIATE vocab=$VOCAB bpe_vocab=$BPE_VOCAB seed=0"
TEXT=$MODEL_DIR/test-16x512.txt

# (a) The model, its tokenizer and the cut text, made once per layout.
if [[ -f $MODEL_DIR/aw-layout.txt ]]; then
  [[ "$(cat "$MODEL_DIR/aw-layout.txt")" == "$LAYOUT" ]] || {
    echo "error: $MODEL_DIR holds another layout ($(cat "$MODEL_DIR/aw-layout.txt")); remove it or set MODEL_DIR" >&2; exit 1; }
  [[ -f $TEXT ]] || { echo "error: $TEXT is missing; remove $MODEL_DIR to make it again" >&2; exit 1; }
  echo "reusing $MODEL_DIR ($LAYOUT)" >&2
else
  [[ ! -e $MODEL_DIR ]] || [[ -z "$(ls -A "$MODEL_DIR")" ]] || {
    echo "error: $MODEL_DIR exists but was not made by this script (no aw-layout.txt); remove it or set MODEL_DIR" >&2; exit 1; }
  echo "making $MODEL_DIR ($LAYOUT)" >&2
  mkdir -p "$MODEL_DIR"
  "$PY" - <<'EOF'
import os, sys
import torch
from tokenizers import ByteLevelBPETokenizer
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

env = os.environ
folder, wikitext = env["MODEL_DIR"], env["WIKITEXT"]
# A byte-level BPE on the train split (GPT-2-style ByteLevel pre-tokenizer and decoder).
bpe = ByteLevelBPETokenizer()
bpe.train(files=[os.path.join(wikitext, "train.txt")], vocab_size=int(env["BPE_VOCAB"]), min_frequency=2,
          special_tokens=["<|endoftext|>"], show_progress=False)
bpe.save(os.path.join(folder, "tokenizer.json"))
print(f"tokenizer: {bpe.get_vocab_size()} tokens", file=sys.stderr)

config = Qwen2Config(vocab_size=int(env["VOCAB"]), hidden_size=int(env["HIDDEN"]),
                     intermediate_size=int(env["INTERMEDIATE"]), num_hidden_layers=int(env["LAYERS"]),
                     num_attention_heads=int(env["HEADS"]), num_key_value_heads=int(env["KV_HEADS"]),
                     tie_word_embeddings=True, rope_theta=1e6, max_position_embeddings=32768,
                     use_sliding_window=False, rms_norm_eps=1e-6, hidden_act="silu")
torch.manual_seed(0)
model = Qwen2ForCausalLM(config).to(torch.float32).eval()
model.save_pretrained(folder, safe_serialization=True)  # transformers 5 always writes safetensors
print(f"model: {sum(p.numel() for p in model.parameters()):,} parameters", file=sys.stderr)

# The test split cut to exactly WINDOWS × WINDOW tokens: the CLI reads every token of its text and has no
# option that limits them. The cut ends at a token's end; it is kept only if it encodes back to the same ids.
tokenizer = PreTrainedTokenizerFast(tokenizer_file=os.path.join(folder, "tokenizer.json"))
with open(os.path.join(wikitext, "test.txt"), encoding="utf-8") as f:
    text = f.read()
needed = int(env["WINDOWS"]) * int(env["WINDOW"])
encoding = tokenizer(text, return_offsets_mapping=True, verbose=False)
ids, offsets = encoding["input_ids"], encoding["offset_mapping"]
if len(ids) < needed:
    sys.exit(f"error: {wikitext}/test.txt: {len(ids)} tokens, fewer than the {needed} needed")
cut = None
for end in sorted({offsets[needed - 1][1] + d for d in range(-8, 64)}):
    if tokenizer(text[:end], verbose=False)["input_ids"] == ids[:needed]:
        cut = text[:end]
        break
if cut is None:
    sys.exit(f"error: no cut of {wikitext}/test.txt encodes to exactly its first {needed} tokens")
with open(os.path.join(folder, "test-16x512.txt"), "w", encoding="utf-8") as f:
    f.write(cut)
print(f"text: {len(cut):,} characters of test.txt = {needed} tokens", file=sys.stderr)
EOF
  "$CLI" info --model "$MODEL_DIR" >&2 || { echo "error: attention-cli info cannot open $MODEL_DIR (above)" >&2; exit 1; }
  echo "$LAYOUT" > "$MODEL_DIR/aw-layout.txt"
fi

# (b) The paired rounds.
LOGS=$OUT.logs
mkdir -p "$(dirname "$OUT")" "$LOGS"
RAW=$LOGS/runs.tsv
printf 'mode\tround\tside\twall_s\tpeak_kb\tresult\n' > "$RAW"

ours_command() {  # sets OURS to the CLI's command for a mode
  local common=(--model "$MODEL_DIR" --text "$TEXT" --window "$WINDOW" --batch "$BATCH" --threads "$THREADS" --device cpu)
  case $1 in
    eval-f32|forward-sdpa) OURS=("$CLI" eval "${common[@]}" --dtype f32 --json) ;;
    eval-bf16) OURS=("$CLI" eval "${common[@]}" --dtype bf16 --json) ;;
    stats-f32) OURS=("$CLI" stats "${common[@]}" --dtype f32 --bootstrap 0 --json) ;;
  esac
}

run_timed() {  # mode round side command…: runs it under /usr/bin/time, appends a row to $RAW
  local mode=$1 round=$2 side=$3; shift 3
  local log=$LOGS/$mode-$round-$side
  if ! "$TIME" -o "$log.time" -f '%e %M' "$@" > "$log.out" 2> "$log.err"; then
    echo "error: $side $mode (round $round) failed: $* — see $log.err" >&2; exit 1
  fi
  local wall peak result
  read -r wall peak < <(tail -n 1 "$log.time")
  result=$("$PY" - "$mode" "$side" "$log.out" <<'EOF'
import json, sys
mode, side, path = sys.argv[1:]
text = open(path, encoding="utf-8").read()
try:
    data = json.loads(text.strip().splitlines()[-1] if side == "hf" else text)
except (ValueError, IndexError):
    print("?"); sys.exit()
if side == "hf":
    print(f"{data['result']:.10g}")
elif mode == "stats-f32":  # the mean over layers of Ratio, as the HF side prints
    rows = data.get("rows", [])
    ratios = [row["Ratio"] for row in rows if row.get("Ratio") is not None]
    print(f"{sum(ratios) / len(ratios):.10g}" if ratios else "?")
else:
    value = next((data[k] for k in ("perplexity", "metric", "value") if isinstance(data.get(k), (int, float))), None)
    print("?" if value is None else f"{value:.10g}")
EOF
)
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$round" "$side" "$wall" "$peak" "$result" >> "$RAW"
  echo "  round $round $mode $side: ${wall} s, $((peak / 1024)) MB, result $result" >&2
}

for mode in $MODES; do
  ours_command "$mode"
  echo "ours $mode: ${OURS[*]}" >&2
  echo "hf   $mode: $PY bench/hf_whole_process.py $mode $MODEL_DIR $TEXT" >&2
done
for ((round = 1; round <= ROUNDS; round++)); do
  for mode in $MODES; do
    ours_command "$mode"
    if ((round % 2)); then
      run_timed "$mode" "$round" ours "${OURS[@]}"
      run_timed "$mode" "$round" hf "$PY" bench/hf_whole_process.py "$mode" "$MODEL_DIR" "$TEXT"
    else
      run_timed "$mode" "$round" hf "$PY" bench/hf_whole_process.py "$mode" "$MODEL_DIR" "$TEXT"
      run_timed "$mode" "$round" ours "${OURS[@]}"
    fi
  done
done

# The table: medians over the rounds.
{
  "$PY" - <<'EOF'
import platform, torch, transformers
print(f"# torch {torch.__version__}, transformers {transformers.__version__}, python {platform.python_version()}")
EOF
  cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
  echo "# nproc $(nproc), CPU: $cpu; $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# $LAYOUT; $WINDOWS windows × $WINDOW tokens of $(basename "$WIKITEXT")/test.txt, batch $BATCH, $THREADS threads, CPU"
  echo "# $ROUNDS paired round(s), first side alternating; medians of /usr/bin/time's wall seconds and peak RSS"
  echo "# forward-sdpa: ours is \`eval\` (the CLI has no plainer forward over windows) beside HF's SDPA forward + loss from the logits"
  "$PY" - "$RAW" <<'EOF'
import csv, statistics, sys
runs = list(csv.DictReader(open(sys.argv[1], encoding="utf-8"), delimiter="\t"))
modes = list(dict.fromkeys(r["mode"] for r in runs))
head = ["mode", "ours median s", "HF median s", "ratio ours/HF", "ours peak MB", "HF peak MB", "memory ratio",
        "ours result", "HF result"]
rows = []
for mode in modes:
    side = {s: [r for r in runs if r["mode"] == mode and r["side"] == s] for s in ("ours", "hf")}
    wall = {s: statistics.median(float(r["wall_s"]) for r in side[s]) for s in side}
    peak = {s: statistics.median(int(r["peak_kb"]) for r in side[s]) / 1024 for s in side}
    rows.append([mode, f"{wall['ours']:.2f}", f"{wall['hf']:.2f}", f"{wall['ours'] / wall['hf']:.3f}",
                 f"{peak['ours']:.0f}", f"{peak['hf']:.0f}", f"{peak['ours'] / peak['hf']:.3f}",
                 side["ours"][-1]["result"], side["hf"][-1]["result"]])
width = [max(len(x) for x in col) for col in zip(head, *rows)]
for row in [head, ["-" * w for w in width], *rows]:
    print("| " + " | ".join(x.ljust(w) for x, w in zip(row, width)) + " |")
print("# results: perplexity (eval, forward-sdpa) or mean Ratio over layers (stats), last round")
EOF
} | tee "$OUT"
echo "table: $OUT; runs: $RAW" >&2
