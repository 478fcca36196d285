#!/usr/bin/env bash
# Trains the small models (2 layers × 4 heads, d 128, WikiText-2's valid split as training text) of
# docs/results-history.md: the earlier bundled samples and their small-scale Table 2. The models the
# application opens now are the study-size ones of scripts/study/train-models.sh (sample_data/README.md);
# this script writes only under build/.
#
#   scripts/study/train-samples.sh samples   # (default) vanilla_lm, bet_sf (WikiText-2), bet_sg (UD EWT) → build/samples/
#   scripts/study/train-samples.sh variants  # the Table 2 variants, and a vanilla model on UD EWT → build/table2/
#   scripts/study/train-samples.sh table     # every model's held-out perplexity → build/table2/results.md
#   scripts/study/train-samples.sh all       # the three in turn
#   scripts/study/train-samples.sh lama        # LAMA+ctx (E = 100, no regulariser) on Amazon reviews → build/lama/amazon_lama
#   scripts/study/train-samples.sh lama-table  # LAMA+ctx, BiGRU-mean and 1-layer encoder on Amazon and SST-5,
#                                        # test results and parameter counts → build/lama/results.md
#
# Every WikiText-2 model gets the same data, sizes, budget and seed; only --arch and the diagonal
# options differ. Needs a built build/app/attention-cli (scripts/build.sh); ~5 minutes per model on
# 2 cores. Data come from ../shared/data (AW_SHARED_DATA overrides); see docs/results-history.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
what=${1:-samples}
cli=build/app/attention-cli
shared=${AW_SHARED_DATA:-../shared/data}
wiki=$shared/wikitext-2
ud=$shared/ud-english-ewt
[ -x "$cli" ] || { echo "train-samples: build first (scripts/build.sh)" >&2; exit 1; }
for f in "$wiki/valid.txt" "$wiki/test.txt" "$ud/en_ewt-ud-train.conllu" "$ud/en_ewt-ud-dev.conllu" "$ud/en_ewt-ud-test.conllu"; do
  [ -f "$f" ] || { echo "train-samples: $f not found" >&2; exit 1; }
done

# WikiText-2's train split is not in ../shared/data: we train on its valid split and cut its test
# split into a validation part (first 1000 lines, picks the best epoch) and a held-out part (the rest).
split=build/sample_split
mkdir -p "$split"
head -n 1000 "$wiki/test.txt" > "$split/valid.txt"
tail -n +1001 "$wiki/test.txt" > "$split/heldout.txt"

sizes=(--layers 2 --heads 4 --d-model 128 --d-ff 512 --window 64)
budget=(--epochs 10 --batch 16 --lr 1e-3 --warmup 200 --dropout 0.1 --seed 1 --threads "${AW_THREADS:-1}" --log-every 200)
wiki_data=(--train "$wiki/valid.txt" --valid "$split/valid.txt" --min-count 3)
ud_data=(--train "$ud/en_ewt-ud-train.conllu" --valid "$ud/en_ewt-ud-dev.conllu" --min-count 2)

train() {  # train <folder under build/> <options...>
  local out=build/$1; shift
  echo "== $out" >&2
  rm -rf "$out"
  "$cli" train "${sizes[@]}" "${budget[@]}" --f16 "$@" --out "$out"
}

heldout() {  # heldout <model dir> <text>: prints the perplexity
  "$cli" eval --model "$1" --text "$2" --window 64 --json 2>/dev/null | sed -n 's/.*"perplexity": \([0-9.]*\).*/\1/p'
}

case "$what" in samples|variants|table|all|lama|lama-table) ;; *) echo "train-samples: unknown step '$what'" >&2; exit 2 ;; esac

# ---- LAMA (docs/lama.md): classifiers on labelled reviews --------------------------------------
amazon=$shared/amazon-fine-food/reviews.tsv
sst=$shared/sst-5
# The Amazon file is partly ordered by product: a seeded shuffle (seed 1) cut 80/10/10 into
# build/lama/amazon/{train,valid,test}.tsv — the same split on every machine.
lama_split() {
  [ -f "$amazon" ] || { echo "train-samples: $amazon not found" >&2; exit 1; }
  "$cli" split --data "$amazon" --out build/lama/amazon --seed 1 --percent 80,10,10
}
lama_budget=(--epochs "${AW_LAMA_EPOCHS:-6}" --batch 32 --lr 2e-3 --warmup 100 --seed 1 --window 256 --min-count 3
             --threads "${AW_THREADS:-1}" --log-every 50 --f16)
lama_sizes=(--embedding-dim 100 --hidden 64 --mlp-hidden 512 --dropout 0.4)
encoder_sizes=(--layers 1 --heads 4 --d-model 128 --d-ff 512 --dropout 0.1)
train_classifier() {  # train_classifier <folder under build/lama> <data dir> <options...>
  local out=build/lama/$1 data=$2; shift 2
  echo "== $out" >&2
  rm -rf "$out"
  /usr/bin/time -f "$out: %e s" "$cli" train --train "$data/train.tsv" --valid "$data/valid.tsv" "${lama_budget[@]}" "$@" --out "$out"
}
sst_split() {  # SST-5 keeps its own split; dev.tsv is the validation file
  mkdir -p build/lama/sst5
  cp "$sst/train.tsv" build/lama/sst5/train.tsv
  cp "$sst/dev.tsv" build/lama/sst5/valid.tsv
  cp "$sst/test.tsv" build/lama/sst5/test.tsv
}

if [ "$what" = lama ]; then
  lama_split
  train_classifier amazon_lama build/lama/amazon --arch lama --context mean --heads 10 "${lama_sizes[@]}"
  "$cli" eval --model build/lama/amazon_lama/best --text build/lama/amazon/test.tsv
fi

if [ "$what" = lama-table ]; then
  lama_split
  sst_split
  for set in amazon sst5; do
    [ "$set" = amazon ] && [ -f build/lama/amazon_lama/best/config.json ] ||
      train_classifier ${set}_lama build/lama/$set --arch lama --context mean --heads 10 "${lama_sizes[@]}"
    train_classifier ${set}_bigru_max build/lama/$set --arch bigru_max "${lama_sizes[@]}"
    train_classifier ${set}_bigru_mean build/lama/$set --arch bigru_mean "${lama_sizes[@]}"
    train_classifier ${set}_encoder build/lama/$set --arch encoder_classifier "${encoder_sizes[@]}"
  done
  {
    for set in amazon sst5; do
      echo "### $set (test split)"
      echo
      for m in lama bigru_max bigru_mean encoder; do
        echo "#### ${set}_$m"
        echo '```'
        "$cli" eval --model build/lama/${set}_$m/best --text build/lama/$set/test.tsv 2>/dev/null
        echo '```'
      done
    done
    echo "### parameters (Amazon vocabulary)"
    echo
    # The paper holds the encoder's parameters constant across head counts: heads split d = 128.
    echo "| heads | LAMA+ctx | 1-layer encoder (d_head = 128 / heads) |"
    echo "|---|---|---|"
    for heads in 1 2 4 8 16; do
      lama=$("$cli" train --arch lama --heads $heads --train build/lama/amazon/train.tsv --valid build/lama/amazon/valid.tsv \
        "${lama_sizes[@]}" --min-count 3 --dry-run | sed 's/.*: \([0-9]*\) parameters.*/\1/')
      encoder=$("$cli" train --arch encoder_classifier --layers 1 --heads $heads --d-model 128 --d-ff 512 \
        --train build/lama/amazon/train.tsv --valid build/lama/amazon/valid.tsv --min-count 3 --dry-run | sed 's/.*: \([0-9]*\) parameters.*/\1/')
      echo "| $heads | $lama | $encoder |"
    done
  } | tee build/lama/results.md
fi

if [ "$what" = samples ] || [ "$what" = all ]; then
  train samples/vanilla_lm --arch transformer_lm "${wiki_data[@]}"
  train samples/bet_sf --arch bet_sf "${wiki_data[@]}"
  train samples/bet_sg --arch bet_sg --lambda-p 1.0 "${ud_data[@]}"
fi

if [ "$what" = variants ] || [ "$what" = all ]; then
  train table2/reduced_diag --arch transformer_lm --diag-mode reduced "${wiki_data[@]}"
  train table2/magnified_diag --arch transformer_lm --diag-mode magnified "${wiki_data[@]}"
  train table2/diag_free_mask --arch transformer_lm --diag-mode mask "${wiki_data[@]}"
  train table2/bet_sf_no_mask --arch bet_sf --no-diag-free-mask "${wiki_data[@]}"
  train table2/ud_vanilla --arch transformer_lm "${ud_data[@]}"
fi

if [ "$what" = table ] || [ "$what" = all ]; then
  mkdir -p build/table2
  {
    echo "| model | best valid perplexity | WikiText-2 held-out perplexity |"
    echo "|---|---|---|"
    for m in samples/vanilla_lm table2/reduced_diag table2/magnified_diag table2/diag_free_mask samples/bet_sf table2/bet_sf_no_mask; do
      echo "| $m | $(sed -n 's/.*"best_valid_perplexity": \([0-9.]*\).*/\1/p' "build/$m/best/training.json") | $(heldout "build/$m/best" "$split/heldout.txt") |"
    done
    echo
    echo "| model | best valid perplexity (UD EWT dev) | UD EWT test perplexity |"
    echo "|---|---|---|"
    for m in table2/ud_vanilla samples/bet_sg; do
      echo "| $m | $(sed -n 's/.*"best_valid_perplexity": \([0-9.]*\).*/\1/p' "build/$m/best/training.json") | $(heldout "build/$m/best" "$ud/en_ewt-ud-test.conllu") |"
    done
  } | tee build/table2/results.md
fi
