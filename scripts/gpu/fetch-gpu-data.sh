#!/usr/bin/env bash
# Packs what scripts/study/train-models.sh's queue reads from ../shared/data (AW_SHARED_DATA overrides) into
# .deps/data.tar.xz, for scripts/gpu/gpu-train.sh on a lent GPU machine (../shared does not travel there;
# a file under .deps, named in `carry`, does): WikiText-2 train/valid/test, UD English EWT
# train/dev/test, the Amazon Fine Food reviews and SST-5 train/dev/test, with their licence and source
# notes. The archive's top folder is data/. .deps/ is ignored by git: the data travel to the device for
# one session and are never committed (shared/data/SOURCES.md: "do not copy these files into the
# repository"). Usage: scripts/gpu/fetch-gpu-data.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${AW_SHARED_DATA:-../shared/data}
target=.deps/data.tar.xz

files=(SOURCES.md
       wikitext-2/train.txt wikitext-2/valid.txt wikitext-2/test.txt wikitext-2/README
       ud-english-ewt/en_ewt-ud-train.conllu ud-english-ewt/en_ewt-ud-dev.conllu ud-english-ewt/en_ewt-ud-test.conllu
       ud-english-ewt/LICENSE.txt ud-english-ewt/README.md
       amazon-fine-food/reviews.tsv amazon-fine-food/SOURCE.md
       sst-5/train.tsv sst-5/dev.tsv sst-5/test.tsv)
for f in "${files[@]}"; do
  [ -f "$shared/$f" ] || { echo "fetch-gpu-data: $shared/$f not found" >&2; exit 1; }
done
git check-ignore -q "$target" || { echo "fetch-gpu-data: $target is not ignored by git: refusing to write it" >&2; exit 1; }

mkdir -p .deps
# One xz thread at low priority: this machine's cores are busy training.
tar -C "$shared" --transform 's,^,data/,' --owner=0 --group=0 -cf - "${files[@]}" |
  nice -n 19 xz -9 -T1 >"$target.part"
mv "$target.part" "$target"
raw=$(cd "$shared" && du -cb "${files[@]}" | tail -1 | cut -f1)
echo "fetch-gpu-data: ${#files[@]} files, $raw bytes → $target, $(stat -c %s "$target") bytes"
