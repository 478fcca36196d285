#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with AddressSanitizer + UBSan into build-fuzz/ and runs each one.
# Usage: scripts/dev/fuzz.sh [SECONDS] [--quick] [--jobs N] [--only TARGET[,TARGET…]]
#   SECONDS   per target (default 60); --quick: 3,000 inputs per target with a fixed seed, a few
#             seconds each (the test suite's run: the same inputs every time on a fresh build-fuzz/)
#   --jobs N  targets run side by side (default 1; each uses one core)
# Exits non-zero on any crash, sanitizer report, leak, timeout (10 s for one input) or out-of-memory
# (2 GB); the input that caused it is saved under build-fuzz/findings/<target>/ and the line to
# reproduce it is printed. New inputs that reach new code stay in build-fuzz/corpus/<target>/, so the
# next run starts where this one ended. Per-target executions go to build-fuzz/fuzz-report.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

seconds=60 jobs=1 only="" budget=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) seconds=60 budget=(-runs=3000 -seed=1) ;;
    --jobs) jobs=$2; shift ;;
    --only) only=$2; shift ;;
    [0-9]*) seconds=$1 ;;
    *) echo "fuzz.sh: unknown argument '$1' (usage: scripts/dev/fuzz.sh [SECONDS] [--quick] [--jobs N] [--only T1,T2])" >&2; exit 2 ;;
  esac
  shift
done

if ! command -v clang++ >/dev/null || ! clang++ -print-file-name=libclang_rt.fuzzer-x86_64.a | grep -q /; then
  scripts/install-deps.sh --no-gui --fuzz
fi

# Configure and build (incrementally after the first time).
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
build=build-fuzz
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWITH_FUZZ=ON \
    -DSANITIZE=address,undefined -DWITH_GUI=OFF -DWITH_TESTS=OFF -DWITH_BENCH=OFF "${launcher[@]}" >/dev/null
fi
cmake --build "$build" --target aw_fuzz --parallel "$(nproc 2>/dev/null || echo 2)"

read -r -a targets < <(tr ";" " " < "$build/fuzz/targets.txt"; echo)
if [ -n "$only" ]; then IFS=',' read -r -a targets <<< "$only"; fi

# Seed corpora: the committed multi-part seeds (scripts/fixtures/make_fuzz_seeds.py) and real single files.
shared=../shared/data
seeds=$build/seeds
rm -rf "$seeds"
seed() {  # seed TARGET FILE… — copies the files that exist
  local target=$1; shift
  mkdir -p "$seeds/$target"
  for file in "$@"; do [ -f "$file" ] && cp "$file" "$seeds/$target/$(echo "$file" | tr '/' '_')"; done
  return 0
}
slice() {  # slice TARGET NAME BYTES FILE — the first BYTES of FILE, cut at a line end
  local target=$1 name=$2 bytes=$3 file=$4
  [ -f "$file" ] || return 0
  mkdir -p "$seeds/$target"
  head -c "$bytes" "$file" | sed '$d' > "$seeds/$target/$name"
}
for dir in fuzz/seeds/*/; do seed "$(basename "$dir")" "$dir"*; done
seed fuzz_safetensors tests/fixtures/hf/*/model.safetensors
seed fuzz_gguf tests/fixtures/gguf/*.gguf
seed fuzz_config sample_data/*/config.json tests/fixtures/hf/*/config.json tests/fixtures/hf_models/*/config.json
seed fuzz_json sample_data/*/training.json tests/fixtures/hf/*/tokenizer_config.json tests/fixtures/hf/*/special_tokens_map.json \
  tests/fixtures/hf/*/vocab.json
slice fuzz_conllu ewt_dev.conllu 6000 "$shared/ud-english-ewt/en_ewt-ud-dev.conllu"
slice fuzz_conllu ewt_test.conllu 3000 "$shared/ud-english-ewt/en_ewt-ud-test.conllu"
seed fuzz_hf_tokenizer tests/fixtures/hf_tokenizers/*.tokenizer.json
seed fuzz_labelled_tsv sample_data/demo_reviews.tsv
slice fuzz_labelled_tsv sst5_dev.tsv 3000 "$shared/sst-5/dev.tsv"
slice fuzz_labelled_tsv amazon.tsv 4000 "$shared/amazon-fine-food/reviews.tsv"
seed fuzz_translation_pairs tests/fixtures/pairs_en_fr.tsv
slice fuzz_translation_pairs tatoeba.tsv 3000 "$shared/tatoeba-eng-fra/eng-fra.tsv"
seed fuzz_session sample_data/default_session.json tests/fixtures/session_v1.json
seed fuzz_sentence_file sample_data/demo_sentences.txt
slice fuzz_sentence_file wikitext.txt 3000 "$shared/wikitext-2/valid.txt"
seed fuzz_csv tests/golden/stats.stats.csv tests/golden/ablate_lama.ablate.csv tests/golden/top_tokens.top.csv \
  tests/golden/prune.prune.csv

# Per target: the largest input (size-aware: big enough for deep nesting and many tensors) and dictionary.
max_len() {
  case "$1" in
    fuzz_checkpoint|fuzz_safetensors|fuzz_sentencepiece) echo 65536 ;;
    fuzz_config|fuzz_json|fuzz_session|fuzz_hf_tokenizer) echo 32768 ;;
    *) echo 16384 ;;
  esac
}
dict() {
  case "$1" in
    fuzz_config|fuzz_json|fuzz_session|fuzz_safetensors|fuzz_checkpoint|fuzz_hf_tokenizer) echo fuzz/dict/json.dict ;;
    fuzz_conllu) echo fuzz/dict/conllu.dict ;;
    fuzz_labelled_tsv|fuzz_translation_pairs|fuzz_sentence_file) echo fuzz/dict/tsv.dict ;;
    fuzz_csv) echo fuzz/dict/csv.dict ;;
    *) echo fuzz/dict/text.dict ;;
  esac
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:handle_abort=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/fuzz/lsan.supp:print_suppressions=0}
logs=$build/logs
mkdir -p "$logs"
run_target() {
  local target=$1
  local corpus=$build/corpus/$target findings=$build/findings/$target
  mkdir -p "$corpus" "$findings"
  local status=0
  "$build/fuzz/$target" -max_total_time="$seconds" "${budget[@]}" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
    -max_len="$(max_len "$target")" -dict="$(dict "$target")" -artifact_prefix="$findings/" \
    -print_final_stats=1 "$corpus" "$seeds/$target" > "$logs/$target.log" 2>&1 || status=$?
  local runs
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$target.log" | tail -1)
  local took
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$logs/$target.log" | tail -1)
  if [ "$status" -eq 0 ]; then
    echo "$target ${took:-$seconds}s ${runs:-?} executions: clean"
  else
    echo "$target stopped at its first finding after ${runs:-?} executions: FINDING (exit $status), log $logs/$target.log"
    ls "$findings" | sed "s|^|  reproduce: $build/fuzz/$target $findings/|"
  fi
  return "$status"
}

report=$build/fuzz-report.txt
: > "$report"
failed=0
pids=()
for target in "${targets[@]}"; do
  [ -x "$build/fuzz/$target" ] || { echo "fuzz.sh: no target '$target' (have: $(cat "$build/fuzz/targets.txt"))" >&2; exit 2; }
  run_target "$target" >> "$report" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}" || failed=1; pids=("${pids[@]:1}"); fi
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
cat "$report"
if [ "$failed" -ne 0 ]; then echo "fuzz.sh: findings above" >&2; exit 1; fi
echo "fuzz.sh: ${#targets[@]} targets, no findings"
