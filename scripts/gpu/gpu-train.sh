#!/usr/bin/env bash
# The one command a session with a lent GPU machine runs there to train the study's queue
# (scripts/study/train-models.sh) on the GPU, from the repo root with .deps/root.tar.xz and .deps/data.tar.xz
# carried (scripts/gpu/fetch-gpu-deps.sh and scripts/gpu/fetch-gpu-data.sh made them here):
#   1. unpacks the data into .deps/data (../shared does not travel; AW_SHARED_DATA overrides);
#   2. builds build-torch/app/attention-cli with scripts/gpu/build-pytorch.sh (which unpacks .deps/root)
#      unless it is built there already (a warm machine), under a time limit;
#   3. runs `scripts/study/train-models.sh queue` in AW_LANES lanes at once (default 4: one 12-M-parameter
#      model leaves the GPU mostly idle) with AW_DEVICE=cuda until SECONDS have passed (default: what
#      is left of a DEADLINE of 540 s, less the time packing needs), then stops them: a run stopped
#      mid-way is lost (on a warm machine the next call resumes it from its last snapshot), finished
#      runs are already recorded;
#   4. writes to $OUT (default build-torch/gpu-train-out), 7 files at most: summary.txt; records.tar
#      (docs/results/runs/ as it now stands there, named from the repo root, where `tar -xf
#      records.tar --skip-old-files` adds the new records and keeps the rest); lanes.log (the build's
#      output if it built, each lane's log, the GPU's load, the end of each touched run's train.log);
#      and with AW_SHIP=1, the sample_data/ folders that `scripts/study/train-models.sh ship` replaced, as a
#      tar in parts of 15 MiB (models.tar.part-aa, …: `cat models.tar.part-* | tar -x`).
# Usage: scripts/gpu/gpu-train.sh [--cpu] [SECONDS]
#   --cpu  AW_DEVICE=cpu, the Debian build's build/app/attention-cli (AW_CLI overrides), no build, one
#          lane unless AW_LANES says otherwise: to exercise the script without a GPU. Point
#          AW_MODELS_DIR, AW_RECORDS_DIR and AW_SAMPLE_DATA at scratch folders so that a live queue,
#          docs/results/runs/ and sample_data/ stay untouched.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
start=$SECONDS
cpu=0
[ "${1:-}" = --cpu ] && { cpu=1; shift; }
asked=${1:-}
deadline=${DEADLINE:-540}
out=${OUT:-build-torch/gpu-train-out}
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs=$(nproc 2>/dev/null || echo 2)
reserve=50  # after the lanes: 20 s for a stopped run to save and quit, then the packing

if [ $cpu -eq 1 ]; then
  device=cpu cli=${AW_CLI:-build/app/attention-cli} lanes=${AW_LANES:-1}
else
  device=${AW_DEVICE:-cuda} cli=${AW_CLI:-build-torch/app/attention-cli} lanes=${AW_LANES:-4}
fi
models=${AW_MODELS_DIR:-build-models}
records=${AW_RECORDS_DIR:-docs/results/runs}
samples=${AW_SAMPLE_DATA:-sample_data}
export AW_MODELS_DIR=$models AW_RECORDS_DIR=$records AW_SAMPLE_DATA=$samples

note() { echo "$*" | tee -a "$summary"; }
left() { echo $((deadline - (SECONDS - start))); }
note "gpu-train $(date -u +%FT%TZ) on $(uname -n): $jobs cores, AW_DEVICE=$device, $lanes lanes, deadline ${deadline}s"
command -v nvidia-smi >/dev/null && [ $cpu -eq 0 ] &&
  note "$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | head -1)"

# 1. The data the queue reads.
if [ -n "${AW_SHARED_DATA:-}" ]; then
  data=$AW_SHARED_DATA
else
  data=.deps/data
  if [ ! -f "$data/wikitext-2/train.txt" ]; then
    if [ ! -f .deps/data.tar.xz ]; then
      note "no .deps/data.tar.xz: make it with scripts/gpu/fetch-gpu-data.sh and name it in carry; nothing trained"
      exit 1
    fi
    tar -C .deps -xJf .deps/data.tar.xz || { note "unpacking .deps/data.tar.xz failed; nothing trained"; exit 1; }
    note "data: .deps/data.tar.xz unpacked into $data ($(du -sh "$data" | cut -f1))"
  fi
fi
export AW_SHARED_DATA=$data

# 2. The CLI.
if [ ! -x "$cli" ]; then
  if [ $cpu -eq 1 ]; then note "$cli is not built (scripts/build.sh); nothing trained"; exit 1; fi
  budget=$(($(left) - reserve - 60))
  [ "$budget" -le 360 ] || budget=360
  begun=$SECONDS
  timeout -k 5 "$budget" env JOBS="$jobs" TARGET=attention-cli bash scripts/gpu/build-pytorch.sh >"$work/build.log" 2>&1
  status=$?
  grep -E '^build-pytorch: torch' "$work/build.log" | tee -a "$summary"
  note "build of $cli: exit $status after $((SECONDS - begun))s (limit ${budget}s)"
  if [ $status -ne 0 ] || [ ! -x "$cli" ]; then
    tail -n 40 "$work/build.log"
    cp "$work/build.log" "$out/lanes.log"
    note "build failed (its log is lanes.log): nothing trained"
    exit 1
  fi
fi

# 3. The lanes, until SECONDS or the deadline less the packing's reserve.
seconds=$(($(left) - reserve))
if [ -n "$asked" ]; then
  if [ "$asked" -le "$seconds" ]; then seconds=$asked; else note "SECONDS=$asked is past the deadline: ${seconds}s"; fi
fi
snapshot() { (cd "$records" 2>/dev/null && find . -name '*.json' -type f -exec md5sum {} + | LC_ALL=C sort); }
snapshot >"$work/records.before"
touch "$work/stamp"
pids=()
if [ "$seconds" -lt 20 ]; then
  note "only ${seconds}s left for training: no lane started"
else
  end=$((SECONDS + seconds))
  for lane in $(seq 1 "$lanes"); do
    remaining=$((end - SECONDS))
    [ "$remaining" -ge 10 ] || break
    # timeout makes each lane a process group of its own, which the clean-up below stops whole.
    timeout -k 20 "$remaining" env AW_DEVICE="$device" AW_CLI="$cli" bash scripts/study/train-models.sh queue \
      >"$work/lane-$lane.log" 2>&1 &
    pids+=($!)
    if [ "$lane" -eq 1 ]; then
      # The first lane splits Amazon's data and copies SST-5's before it takes a run ("== RUN"); the
      # others start after that, so no two lanes write those files at once.
      for _ in $(seq 1 120); do
        grep -q '^== ' "$work/lane-1.log" 2>/dev/null && break
        kill -0 "${pids[0]}" 2>/dev/null || break
        sleep 0.5
      done
    fi
  done
  note "lanes: ${#pids[@]} started, ${seconds}s"
  if [ $cpu -eq 0 ] && command -v nvidia-smi >/dev/null; then
    (while sleep 20; do
       echo "$(date -u +%T) $(nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader 2>&1 | head -1)"
     done) >"$work/gpu.log" 2>&1 &
    sampler=$!
  fi
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}"
    status=$?
    case $status in
      0) verdict="finished: nothing left it could take" ;;
      124|137) verdict="stopped at the time limit" ;;
      *) verdict="FAILED (exit $status; see lanes.log)" ;;
    esac
    note "    lane $((i + 1)): $verdict"
  done
  [ -n "${sampler:-}" ] && kill "$sampler" 2>/dev/null
  # A stopped run's attention-cli saves at its next progress report and quits; one still there after
  # 20 s (or a lane's leftover child) is killed with its whole process group.
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 40); do kill -0 -- -"$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- -"$pid" 2>/dev/null
  done
fi

# 4. What comes back. The data here are .deps/data, byte for byte the copies of ../shared/data that
# fetch-gpu-data.sh packed: the records (and below the shipped training.json) name them as
# ../shared/data, so that `compare` sees the same test file as in the runs trained at home. The runs'
# own folders keep the paths they read, so a warm machine's next call resumes them.
home_paths() { [ "$data" != .deps/data ] || sed -i 's,"\.deps/data/,"../shared/data/,g' "$@"; }
find "$records" -name '*.json' -newer "$work/stamp" -type f -print0 2>/dev/null |
  while IFS= read -r -d '' record; do home_paths "$record"; done
snapshot >"$work/records.after"
# New or changed: a checksum-and-name line that was not there before.
changed=$(LC_ALL=C comm -13 "$work/records.before" "$work/records.after" | awk '{ print $2 }' | sed 's,^\./,,')
recorded=$(grep -c . "$work/records.after")
if [ -n "$changed" ]; then
  note "records new or changed: $(echo "$changed" | grep -c .) (of $recorded):"
  for record in $changed; do
    note "    ${record%.json}: $(grep -o '"\(perplexity\|accuracy\)": [0-9.e+-]*' "$records/$record" | head -n 1 | tr -d '"')"
  done
else
  note "records new or changed: none (of $recorded)"
fi
if [ "$recorded" -gt 0 ]; then
  # The records and what is kept beside them (each run's Table 1, a series' prunable shares).
  (cd "$records" && find . \( -name '*.json' -o -name '*.csv' \) -type f | sed 's,^\./,,' | sort) >"$work/records.list"
  tar -C "$records" --transform 's,^,docs/results/runs/,' -cf "$out/records.tar" -T "$work/records.list" &&
    note "records.tar: docs/results/runs/ ($recorded records; at the repo root: tar -xf records.tar --skip-old-files, which adds the new ones and keeps every record already there)"
fi

# Runs this call trained or recorded: finished, or stopped with their last progress line.
{
  [ -f "$work/build.log" ] && { echo "===== build"; tail -n 100 "$work/build.log"; }
  for log in "$work"/lane-*.log; do [ -f "$log" ] && { echo "===== $(basename "$log" .log)"; cat "$log"; }; done
  [ -s "$work/gpu.log" ] && { echo "===== GPU utilization, memory used"; cat "$work/gpu.log"; }
} >"$out/lanes.log"
while IFS= read -r log; do
  run=${log#"$models"/}
  run=${run%/train.log}
  last=$(tr '\r' '\n' <"$log" | grep -a '^step' | tail -n 1)
  if [ -f "$records/$run.json" ]; then state="recorded"
  elif [ -f "$(dirname "$log")/queue-done" ]; then state="finished, not recorded"
  else state="stopped (lost, unless this machine trains again)"; fi
  note "    $run: $state; last progress: ${last:-none}"
  # Its end, without the progress lines of eval (one per batch).
  { echo "===== $run/train.log (end)"; tr '\r' '\n' <"$log" | grep -av -e '^eval: [0-9]*/' -e '^ *$' | tail -n 25; } >>"$out/lanes.log"
done < <(find "$models" -mindepth 3 -maxdepth 3 -name train.log -newer "$work/stamp" 2>/dev/null | sort)

if [ "${AW_SHIP:-0}" = 1 ]; then
  bash scripts/study/train-models.sh ship 2>"$work/ship.log"
  cat "$work/ship.log" >>"$out/lanes.log"
  mapfile -t shipped < <(sed -n "s,^train-models: .* → $samples/\(.*\)$,\1,p" "$work/ship.log")
  if [ ${#shipped[@]} -eq 0 ]; then
    note "ship: no seed-1 run of a bundled model has finished here: nothing shipped"
  else
    for name in "${shipped[@]}"; do home_paths "$samples/$name/training.json"; done
    bytes=$(cd "$samples" && du -cb "${shipped[@]}" | tail -n 1 | cut -f1)
    room=$((64 * 1024 * 1024 - $(du -cb "$out" | tail -n 1 | cut -f1) - 1024 * 1024))
    [ $room -le $((4 * 15 * 1024 * 1024)) ] || room=$((4 * 15 * 1024 * 1024))  # 8 files back at most
    if [ "$bytes" -gt "$room" ]; then
      note "ship: ${shipped[*]} are $bytes bytes, more than the $room that can come back: not packed"
    else
      tar -C "$samples" --transform 's,^,sample_data/,' -cf - "${shipped[@]}" |
        split -b 15M -a 2 - "$out/models.tar.part-"
      note "ship: sample_data/{$(IFS=,; echo "${shipped[*]}")} in $(find "$out" -maxdepth 1 -name 'models.tar.part-*' | wc -l) parts" \
           "(join: cat models.tar.part-* | tar -x -C SOMEWHERE; check with attention-cli info and the tests before committing)"
    fi
  fi
fi
note "gpu-train: $((SECONDS - start))s in all; $(find "$out" -maxdepth 1 -type f | wc -l) files in $out"
