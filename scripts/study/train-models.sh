#!/usr/bin/env bash
# Trains the study-size models of docs/results.md (issue 15): the Bird-Eye Table 2 variants on
# WikiText-2 — trained on train.txt, the epoch chosen on valid.txt, reported on test.txt, the paper's
# protocol — with 3 seeds each; BET(SG) on UD English EWT with λ_p chosen on the dev set beside a
# vanilla model on the same data; and LAMA+ctx with the ‖AAᵀ − I‖² penalisation beside its BiGRU
# (max-pooling) and 1-layer encoder baselines on Amazon Fine Food and SST-5, 3 seeds each.
#
#   scripts/study/train-models.sh queue    # trains every run not trained yet, most useful first; resumable
#                                    # (a killed run continues from its last snapshot, at most 200
#                                    # steps back). Start it once per core: each run is locked to the
#                                    # lane that took it. AW_ONLY=REGEX takes only the variants
#                                    # it matches (AW_ONLY='^ud_': the short UD EWT runs first).
#   scripts/study/train-models.sh status   # each run: recorded, done, running (with its last progress line), waiting
#   scripts/study/train-models.sh queued   # the runs not recorded yet, "variant seed" a line (the report lists them)
#   scripts/study/train-models.sh record   # records every finished run's test result (the queue does it too),
#                                    # and Table 1 of recorded runs whose weights are here and have none
#   scripts/study/train-models.sh ship     # seed 1 of vanilla, BET(SF), the chosen BET(SG) and LAMA → sample_data/
#
# Each finished run is recorded at once in docs/results/runs/<variant>/seed-<S>.json (committed): its
# test metric as `attention-cli eval --json` gives it, with its training summary, and for language and
# translation models Table 1 on the test split (seed-<S>.table1.csv, `stats`). The weights stay in
# build-models/ only (seed 1 of the bundled models excepted), so a later session — on another machine,
# where build-models/ is gone — skips recorded runs, and `compare` reads the records as the runs.
#
# Sizes: 4 layers × 8 heads, d_model 256, d_ff 1024, windows of 128 tokens, the full WikiText-2
# vocabulary (33,278 words: the corpus is already <unk>-mapped, so every training word is kept);
# one LibTorch thread per run (two lanes on two cores). On one core of this project's machine a
# WikiText-2 epoch takes about 25 minutes, a UD EWT epoch about 2.
#
# Runs go to build-models/<variant>/seed-<S> (AW_MODELS_DIR overrides); each run's progress goes to
# its train.log. Data come from ../shared/data (AW_SHARED_DATA overrides); records go to
# docs/results/runs (AW_RECORDS_DIR), shipped models to sample_data (AW_SAMPLE_DATA).
set -euo pipefail
cd "$(dirname "$0")/../.."
what=${1:-queue}
shared=${AW_SHARED_DATA:-../shared/data}
wiki=$shared/wikitext-2
ud=$shared/ud-english-ewt
models=${AW_MODELS_DIR:-build-models}
records=${AW_RECORDS_DIR:-docs/results/runs}
built_cli=${AW_CLI:-build/app/attention-cli}  # scripts/gpu/gpu-train.sh points it at the pip-LibTorch build
samples=${AW_SAMPLE_DATA:-sample_data}  # where ship puts the models (a scratch copy in gpu-train.sh's CPU test)

sizes=(--layers 4 --heads 8 --d-model 256 --d-ff 1024 --window 128)
wiki_budget=(--epochs 2 --batch 16 --lr 1e-3 --warmup 200 --schedule cosine --dropout 0.1)
ud_budget=(--epochs 10 --batch 16 --lr 1e-3 --warmup 200 --schedule cosine --dropout 0.1)
wiki_data=(--train "$wiki/train.txt" --valid "$wiki/valid.txt" --min-count 1)
ud_data=(--train "$ud/en_ewt-ud-train.conllu" --valid "$ud/en_ewt-ud-dev.conllu" --min-count 2)
lambdas=(0.1 0.3 1)   # BET(SG)'s pointer-loss weights tried on seed 1; the best on UD dev goes on
amazon=$shared/amazon-fine-food/reviews.tsv
sst=$shared/sst-5
# Classifiers: E = 2h (the mean-embedding context needs no projection), 10 heads, the MLP of 512 with
# dropout 0.4; LAMA with the penalisation λ·‖AAᵀ − I‖²_F, λ = 1. Best epoch by validation accuracy.
classifier_budget=(--epochs 6 --batch 32 --lr 2e-3 --warmup 100 --window 256 --min-count 3)
lama_options="--arch lama --context mean --heads 10 --embedding-dim 128 --hidden 64 --mlp-hidden 512 --dropout 0.4 --regularizer penal --lambda 1"
# LAMA+ctx as its paper's §3.5 trains it (issue 42): embeddings of 100 (trained here, not word2vec), a GRU of
# 50, words seen fewer than 5 times dropped, dropout 0.4, batch 32, SGD at 0.05 with momentum 0.9 and weight
# decay 1e-4, early stopping with patience 5, and no regulariser (the paper's LAMA+ctx). The context is the
# mean of the review's word embeddings (E = 2h, no projection), trained with them.
lama_paper_options="--arch lama --context mean --heads 10 --embedding-dim 100 --hidden 50 --mlp-hidden 512 --dropout 0.4 --regularizer none --optimizer sgd --lr 0.05 --momentum 0.9 --weight-decay 1e-4 --schedule constant --warmup 0 --batch 32 --min-count 5 --epochs 50 --patience 5"
bigru_options="--arch bigru_max --embedding-dim 128 --hidden 64 --mlp-hidden 512 --dropout 0.4"
encoder_options="--arch encoder_classifier --layers 1 --heads 4 --d-model 128 --d-ff 512 --dropout 0.1"
# The translation pair (sample_data/README.md): 2 + 2 layers × 4 heads on Tatoeba en–fr split by source.
mt_options="--arch transformer_mt --vocab-size 4000 --d-model 128 --d-ff 512 --layers 2 --heads 4 --window 48 --batch 64 --lr 1e-3 --warmup 800 --label-smoothing 0.1 --epochs 2"
tatoeba=$shared/tatoeba-eng-fra/eng-fra.tsv
# Converged WikiText-2 models: the paper's 6 layers, early stopping on valid (options after the budget win).
converged="--layers 6 --epochs 60 --patience 5"

# Every run, most useful first: "variant seed options…". The models the application opens first
# (the WikiText-2 pair, LAMA on Amazon, the λ_p sweep that picks BET(SG)), then the classifiers'
# seeds, one seed of every other variant, then the seeds the report's comparisons need.
runs() {
  local s
  echo "vanilla 1 --arch transformer_lm"
  echo "bet_sf 1 --arch bet_sf"
  echo "amazon_lama 1 $lama_options"
  for l in "${lambdas[@]}"; do echo "ud_bet_sg_lambda_$l 1 --arch bet_sg --lambda-p $l"; done
  echo "ud_vanilla 1 --arch transformer_lm"
  for s in 1 2 3; do
    for set in amazon sst5; do
      [ "$set$s" = amazon1 ] || echo "${set}_lama $s $lama_options"
      echo "${set}_bigru_max $s $bigru_options"
      echo "${set}_encoder $s $encoder_options"
    done
  done
  echo "bet_sf_no_mask 1 --arch bet_sf --no-diag-free-mask"
  echo "diag_free_mask 1 --arch transformer_lm --diag-mode mask"
  echo "reduced_diag 1 --arch transformer_lm --diag-mode reduced"
  echo "magnified_diag 1 --arch transformer_lm --diag-mode magnified"
  for s in 2 3; do
    echo "vanilla $s --arch transformer_lm"
    echo "bet_sf $s --arch bet_sf"
  done
  for s in 2 3; do
    echo "ud_bet_sg $s --arch bet_sg --lambda-p CHOSEN"
    echo "ud_vanilla $s --arch transformer_lm"
  done
  for s in 2 3; do
    echo "reduced_diag $s --arch transformer_lm --diag-mode reduced"
    echo "magnified_diag $s --arch transformer_lm --diag-mode magnified"
    echo "bet_sf_no_mask $s --arch bet_sf --no-diag-free-mask"
    echo "diag_free_mask $s --arch transformer_lm --diag-mode mask"
  done
  # The papers' protocols (issue 42). LAMA as its §3.5 trains it, 3 seeds on each data set:
  for s in 1 2 3; do
    echo "amazon_lama_paper $s $lama_paper_options"
    echo "sst5_lama_paper $s $lama_paper_options"
  done
  # Michel §6: a run that keeps every epoch's checkpoint, its pruning
  # series recorded beside its test result (UD EWT: minutes an epoch; the translation model's after).
  echo "series_ud_vanilla 1 --arch transformer_lm --keep-epochs"
  # The translation pair with 3 seeds each, as sample_data/README.md trained mt_vanilla and mt_bet_sf.
  for s in 1 2 3; do
    echo "mt_vanilla $s $mt_options"
    echo "mt_bet_sf $s $mt_options --bird-eye-decoder"
  done
  echo "series_mt_vanilla 1 $mt_options --epochs 10 --keep-epochs"
  # LAMA §5.5 (Figure 5): the number of heads m = 1, 5, 15, 20 by the §3.5 recipe on SST-5, 3 seeds each
  # (m = 10 is sst5_lama_paper); minutes a run on one core.
  for s in 1 2 3; do
    for m in 1 5 15 20; do echo "sst5_lama_paper_m$m $s ${lama_paper_options/--heads 10/--heads $m}"; done
  done
  # Bird-Eye Table 2 at the paper's 6 layers, trained until valid stops improving (5 epochs' patience, 60
  # at most) rather than for a fixed 2 epochs: about 30 minutes an epoch on one core, so a lent GPU
  # (scripts/gpu/gpu-train.sh) or days of CPU lanes.
  for s in 1 2 3; do
    echo "wiki6_vanilla $s --arch transformer_lm $converged"
    echo "wiki6_bet_sf $s --arch bet_sf $converged"
    echo "wiki6_bet_sf_no_mask $s --arch bet_sf --no-diag-free-mask $converged"
    echo "wiki6_diag_free_mask $s --arch transformer_lm --diag-mode mask $converged"
    echo "wiki6_reduced_diag $s --arch transformer_lm --diag-mode reduced $converged"
    echo "wiki6_magnified_diag $s --arch transformer_lm --diag-mode magnified $converged"
  done
}

record_of() { echo "$records/$1/seed-$2.json"; }  # record_of <variant> <seed>

best_valid() {  # best_valid <record file>: the run's best validation perplexity
  sed -n 's/.*"best_valid_perplexity": \([0-9.e+-]*\).*/\1/p' "$1" | head -n 1
}

# The λ_p whose seed-1 run has the lowest UD dev perplexity; empty while a sweep run is unrecorded.
chosen_lambda() {
  local l best="" best_ppl=""
  for l in "${lambdas[@]}"; do
    local record
    record=$(record_of "ud_bet_sg_lambda_$l" 1)
    [ -f "$record" ] || return 0
    local ppl
    ppl=$(best_valid "$record")
    if [ -z "$best" ] || awk -v a="$ppl" -v b="$best_ppl" 'BEGIN { exit !(a < b) }'; then best=$l best_ppl=$ppl; fi
  done
  echo "$best"
}

# take <folder>: lock a run for this lane (a lock whose lane died is taken over).
take() {
  local lock=$1.lock
  mkdir -p "$(dirname "$1")"
  if mkdir "$lock" 2>/dev/null; then echo $$ > "$lock/pid"; return 0; fi
  local owner
  owner=$(cat "$lock/pid" 2>/dev/null || true)
  if [ -n "$owner" ] && kill -0 "$owner" 2>/dev/null; then return 1; fi
  rm -rf "$lock"
  mkdir "$lock" 2>/dev/null && echo $$ > "$lock/pid"
}

# test_data <variant>: the options eval reads the variant's test split with (the paper's protocol:
# only after training, and never to choose anything).
test_data() {
  case $1 in
    ud_*|series_ud_*) echo "--text $ud/en_ewt-ud-test.conllu --window 128" ;;
    mt_*|series_mt_*) echo "--text $models/data/mt/test1000.tsv" ;;
    amazon_*) echo "--text $models/data/amazon/test.tsv" ;;
    sst5_*) echo "--text $sst/test.tsv" ;;
    *) echo "--text $wiki/test.txt --window 128" ;;
  esac
}

# series_data <variant>: what prune --series scores each epoch on. The translation model as Michel §6
# does, by BLEU (beam 4) on the first 500 test pairs (as reproduce.sh's BLEU steps: a pruning curve
# translates the pairs once per step) and in the order of I_h alone (the oracle order would translate
# them once per head as well); the language model by its test perplexity, both orders.
series_data() {
  case $1 in
    series_mt_*) echo "--text $models/data/mt/test500.tsv --metric bleu --order importance" ;;
    *) test_data "$1" ;;
  esac
}

# record_table1 <variant> <seed>: Bird-Eye Table 1 of a finished language or translation model on its
# test split, beside its record (seed-<S>.table1.csv; its weights are not kept, so the report reads
# Table 1's spread over training runs from these). Classifiers and series runs have none.
record_table1() {
  local variant=$1 seed=$2 out=$models/$1/seed-$2 record
  case $variant in amazon_*|sst5_*|series_*) return 0 ;; esac
  record=$(record_of "$variant" "$seed")
  mkdir -p "$(dirname "$record")"
  # shellcheck disable=SC2046  # the test data's options are words
  "$cli" stats --model "$out/best" $(test_data "$variant") --threads 1 --bootstrap 0 --out "${record%.json}.table1.csv" \
    < /dev/null >> "$out/train.log" 2>&1 || {
    echo "train-models: stats on $out/best failed; see $out/train.log" >&2
    return 1
  }
}

# record_run <variant> <seed>: the finished run's test result and training summary, as one JSON file.
record_run() {
  local variant=$1 seed=$2 out=$models/$1/seed-$2 record
  record=$(record_of "$variant" "$seed")
  mkdir -p "$(dirname "$record")"
  # shellcheck disable=SC2046  # the test data's options are words
  "$cli" eval --model "$out/best" $(test_data "$variant") --threads 1 --json < /dev/null > "$out/test.json" 2>> "$out/train.log" || {
    echo "train-models: eval of $out/best failed; see $out/train.log" >&2
    return 1
  }
  if [[ $variant == series_* ]]; then  # Michel §6: the share prunable at each kept epoch, kept with the record
    # shellcheck disable=SC2046
    "$cli" prune --model "$out" --series $(series_data "$variant") --threads 1 --out "$(dirname "$record")/series.csv" \
      --curves "$(dirname "$record")/series_curves.csv" --share-change "$(dirname "$record")/series_change.csv" \
      < /dev/null >> "$out/train.log" 2>&1 || {
      echo "train-models: prune --series on $out failed; see $out/train.log" >&2
      return 1
    }
  fi
  record_table1 "$variant" "$seed" || return 1
  python3 scripts/study/record_run.py "$out/test.json" "$out/training.json" "$variant" "$record" || return 1
  echo "train-models: $variant seed $seed recorded in $record" >&2
}

# train_run <variant> <seed> <options…>: trains (or resumes) one run; 0 when it is done.
train_run() {
  local variant=$1 seed=$2; shift 2
  local out=$models/$variant/seed-$seed data budget model_sizes=("${sizes[@]}")
  case $variant in
    ud_*|series_ud_*) data=("${ud_data[@]}") budget=("${ud_budget[@]}") ;;
    mt_*|series_mt_*)
      data=(--train "$models/data/mt/train.tsv" --valid "$models/data/mt/valid.tsv")
      budget=() model_sizes=() ;;
    amazon_*|sst5_*)
      local set=${variant%%_*}
      data=(--train "$models/data/$set/train.tsv" --valid "$models/data/$set/valid.tsv")
      budget=("${classifier_budget[@]}") model_sizes=() ;;
    *) data=("${wiki_data[@]}") budget=("${wiki_budget[@]}") ;;
  esac
  local start=(--out "$out")
  if [ -f "$out/training_state.pt" ]; then
    start=(--resume "$out")
    # The translation tokenizer's options describe a fresh run (its spm.model is in the folder), and
    # train refuses them with --resume.
    local kept=() skip=0 option
    for option in "$@"; do
      if [ "$skip" = 1 ]; then skip=0; continue; fi
      case $option in --vocab-size|--spm-type) skip=1 ;; *) kept+=("$option") ;; esac
    done
    set -- "${kept[@]}"
  fi
  mkdir -p "$out"
  echo "== $out ($(date -u +%H:%M))" >&2
  if [ -f "$out/queue-done" ] || "$cli" train "${model_sizes[@]}" "${budget[@]}" "${data[@]}" --seed "$seed" --threads 1 --log-every 100 --save-every 200 --f16 \
       "$@" "${start[@]}" < /dev/null >> "$out/train.log" 2>&1; then
    touch "$out/queue-done"
    record_run "$variant" "$seed"
  else
    echo "train-models: $out stopped (exit $?); see $out/train.log" >&2
    return 1
  fi
}

queue() {
  [ -x "$built_cli" ] || { echo "train-models: $built_cli not found: build first (scripts/build.sh)" >&2; exit 1; }
  for f in "$wiki/train.txt" "$wiki/valid.txt" "$ud/en_ewt-ud-train.conllu" "$ud/en_ewt-ud-dev.conllu"; do
    [ -f "$f" ] || { echo "train-models: $f not found" >&2; exit 1; }
  done
  # The classifiers' data: Amazon's seeded 80/10/10 split (as the sample LAMA model's), SST-5's own.
  for f in "$amazon" "$sst/train.tsv" "$sst/dev.tsv" "$sst/test.tsv"; do
    [ -f "$f" ] || { echo "train-models: $f not found" >&2; exit 1; }
  done
  if [ ! -f "$models/data/amazon/test.tsv" ]; then
    "$built_cli" split --data "$amazon" --out "$models/data/amazon" --seed 1 >&2
  fi
  if [ ! -f "$models/data/mt/test1000.tsv" ]; then  # the translation split of sample_data/README.md
    [ -f "$tatoeba" ] || { echo "train-models: $tatoeba not found" >&2; exit 1; }
    "$built_cli" split --data "$tatoeba" --out "$models/data/mt" --group-by source --percent 90,5,5 --seed 1 >&2
    head -n 1000 "$models/data/mt/test.tsv" > "$models/data/mt/test1000.tsv"
  fi
  [ -f "$models/data/mt/test500.tsv" ] || head -n 500 "$models/data/mt/test.tsv" > "$models/data/mt/test500.tsv"
  mkdir -p "$models/data/sst5"
  cp "$sst/train.tsv" "$models/data/sst5/train.tsv"
  cp "$sst/dev.tsv" "$models/data/sst5/valid.tsv"
  cp "$sst/test.tsv" "$models/data/sst5/test.tsv"
  # The lowest priority, so interactive work on the machine goes first: nice 19 for this lane, and for
  # its scheduling autogroup too (Linux groups a session's processes; nice alone only counts inside
  # the group, so a lane started with setsid would otherwise share the cores equally with a build).
  renice -n 19 -p $$ > /dev/null 2>&1 || true
  echo 19 2>/dev/null > /proc/self/autogroup || true
  # This lane's own copy of the CLI, so a rebuild while it trains cannot change it under a run.
  mkdir -p "$models/.bin"
  cli=$models/.bin/attention-cli-$$
  cp "$built_cli" "$cli"
  trap 'rm -f "$cli"' EXIT
  local progress=1
  while [ "$progress" = 1 ]; do
    progress=0
    while read -r variant seed options; do
      local out=$models/$variant/seed-$seed
      [ -f "$(record_of "$variant" "$seed")" ] && continue
      [ -z "${AW_ONLY:-}" ] || [[ $variant =~ $AW_ONLY ]] || continue
      if [[ $options == *CHOSEN* ]]; then
        local lambda
        lambda=$(chosen_lambda)
        [ -n "$lambda" ] || continue
        options=${options/CHOSEN/$lambda}
      fi
      take "$out" || continue
      # shellcheck disable=SC2086  # the options are words
      if train_run "$variant" "$seed" $options; then progress=1; fi
      rm -rf "$out.lock"
      [ -f "$(record_of "$variant" "$seed")" ] || exit 1
    done < <(runs)
  done
}

# record_all: records every finished run that has no record yet (one finished by an older lane), and
# adds Table 1 to recorded runs whose weights are still here and that have none (recorded before it was).
record_all() {
  [ -x "$built_cli" ] || { echo "train-models: $built_cli not found: build first (scripts/build.sh)" >&2; exit 1; }
  cli=$built_cli
  while read -r variant seed _; do
    local record
    record=$(record_of "$variant" "$seed")
    [ -f "$models/$variant/seed-$seed/queue-done" ] || continue
    if [ ! -f "$record" ]; then
      record_run "$variant" "$seed" || exit 1
    elif [ ! -f "${record%.json}.table1.csv" ]; then
      record_table1 "$variant" "$seed" || exit 1
      [ ! -f "${record%.json}.table1.csv" ] || echo "train-models: $variant seed $seed: Table 1 added to its record" >&2
    fi
  done < <(runs)
}

# ship: the models the application opens, from seed 1 of each (already F16), into sample_data/.
ship() {
  local lambda
  lambda=$(chosen_lambda)
  # The language models from the converged 6-layer runs once they are finished (Table 2 then compares
  # those, reproduce.sh), else from the 2-epoch 4-layer ones.
  local vanilla=$models/vanilla/seed-1 bet_sf=$models/bet_sf/seed-1
  [ -f "$models/wiki6_vanilla/seed-1/queue-done" ] && vanilla=$models/wiki6_vanilla/seed-1
  [ -f "$models/wiki6_bet_sf/seed-1/queue-done" ] && bet_sf=$models/wiki6_bet_sf/seed-1
  local pairs=("vanilla_lm=$vanilla" "bet_sf=$bet_sf" "lama_amazon=$models/amazon_lama/seed-1")
  [ -n "$lambda" ] && pairs+=("bet_sg=$models/ud_bet_sg_lambda_$lambda/seed-1")
  for pair in "${pairs[@]}"; do
    local name=${pair%%=*} run=${pair#*=}
    if [ ! -f "$run/queue-done" ]; then echo "train-models: $run is not finished: $name not shipped" >&2; continue; fi
    rm -rf "${samples:?}/$name" && mkdir -p "$samples/$name"
    cp "$run/best/"* "$samples/$name/"
    echo "train-models: $run/best → $samples/$name" >&2
  done
}

# queued: every run not recorded yet, "variant seed" a line, in the queue's order (the report lists them).
queued() {
  while read -r variant seed _; do
    [ -f "$(record_of "$variant" "$seed")" ] || echo "$variant $seed"
  done < <(runs)
}

status() {
  while read -r variant seed _; do
    local out=$models/$variant/seed-$seed state=waiting record
    record=$(record_of "$variant" "$seed")
    if [ -f "$record" ]; then
      state="recorded: test $(grep -o '"\(perplexity\|accuracy\)": [0-9.e+-]*' "$record" | head -n 1 | tr -d '"')"
    elif [ -f "$out/queue-done" ]; then
      state="done, best valid $(grep -o '"best_valid_[a-z]*": [0-9.e+-]*' "$out/training.json" | head -n 1 | tr -d '"' | sed 's/best_valid_//')"
    elif [ -d "$out.lock" ] && kill -0 "$(cat "$out.lock/pid" 2>/dev/null || echo 0)" 2>/dev/null; then
      state="running: $(tr '\r' '\n' < "$out/train.log" 2>/dev/null | grep -a '^step' | tail -n 1 || true)"
    elif [ -f "$out/training_state.pt" ]; then state="stopped, resumable"; fi
    printf '%-28s seed %s  %s\n' "$variant" "$seed" "$state"
  done < <(runs)
}

# In braces with an exit: bash reads a script as it runs, so an edit while a lane trains must not
# reach it; the whole block is parsed before it starts, and nothing after it is ever read.
{
case "$what" in
  queue) queue ;;
  status) status ;;
  queued) queued ;;
  chosen-lambda) chosen_lambda ;;
  record) record_all ;;
  ship) ship ;;  # BET(SG)'s λ_p, once its sweep is done (scripts/study/reproduce.sh)
  *) echo "train-models: unknown step '$what' (queue, status, queued, record, ship or chosen-lambda)" >&2; exit 2 ;;
esac
exit
}
