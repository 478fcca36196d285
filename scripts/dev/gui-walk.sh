#!/usr/bin/env bash
# Drives the real window under Xvfb with xdotool, as a person would by keyboard, and checks each step.
# The first walk: open the samples, type a sentence, change layer and head, switch a head off, save the
# session, run every analysis tab and export its CSV and PNG, quit, reopen the saved session and save it
# again. The long walk (--long): seven models (native and Hugging Face folders), an 8,192-token text
# opened from a file on a llama layout, its run cancelled and then finished, a zoom to full resolution
# and back, a too-long text's error over each compared model's map, Ctrl+Q. What is on screen is read
# from the window's own list of its visible texts (app/gui/visible_texts.h): each message seen whole.
# Usage: scripts/dev/gui-walk.sh BUILD/app/attention-workbench SAMPLE_DIR OUT_DIR
#        scripts/dev/gui-walk.sh --long LLAMA_DIR BUILD/app/attention-workbench SAMPLE_DIR OUT_DIR
#        (LLAMA_DIR: build/bench/write-llama-layout small, or 1b for the Llama-3.2-1B layout in BF16)
# Exit 0: every step checked; 1: a step failed (the step, and the window's log); 77: Xvfb or xdotool
# missing (ctest counts it as skipped; scripts/install-deps.sh installs both with the GUI packages).
set -euo pipefail
llama=
if [ "${1:-}" = --long ]; then llama=$(realpath "$2") && shift 2; fi
app=$(realpath "$1") samples=$(realpath "$2") out=$3
for tool in Xvfb xdotool python3; do
  command -v "$tool" >/dev/null || { echo "gui-walk: $tool is not installed (scripts/install-deps.sh installs it)"; exit 77; }
done
rm -rf "$out" && mkdir -p "$out/home" && out=$(realpath "$out")
export HOME=$out/home XDG_CONFIG_HOME=$out/home/config XDG_DATA_HOME=$out/home/data XDG_RUNTIME_DIR=$out/home/runtime
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
unset QT_QPA_PLATFORM WAYLAND_DISPLAY

# A display of its own, chosen by Xvfb (-displayfd): two walks started at once (ctest runs gui.walk and
# gui.walk_long side by side) took the same free number when the script chose it, and one failed.
Xvfb -displayfd 3 -screen 0 1366x768x24 -nolisten tcp 3>"$out/display" >"$out/xvfb.log" 2>&1 &
xvfb=$!
for _ in $(seq 100); do [ -s "$out/display" ] && break; sleep 0.1; done
[ -s "$out/display" ] || { echo "gui-walk: Xvfb chose no display:"; tail -n 5 "$out/xvfb.log"; kill "$xvfb"; exit 1; }
export DISPLAY=:$(head -n 1 "$out/display")
app_pid=
cleanup() {
  [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null || true
  kill "$xvfb" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 50); do xdotool getmouselocation >/dev/null 2>&1 && break; sleep 0.1; done

step=0
say() { step=$((step + 1)); echo "gui-walk: step $step: $*"; }
fail() {
  echo "gui-walk: step $step FAILED: $*"
  echo "--- the window's log (last lines) ---"
  tail -n 20 "$out/app.log" || true
  # A display that went away mid-walk ("Can't open display") is the X server's doing: say whether it
  # still runs, and what it logged.
  kill -0 "$xvfb" 2>/dev/null && echo "--- Xvfb on $DISPLAY still runs ---" || echo "--- Xvfb on $DISPLAY has exited ---"
  tail -n 10 "$out/xvfb.log" || true
  exit 1
}
# wait_for SECONDS COMMAND…: polls every 0.3 s until COMMAND succeeds.
wait_for() {
  local limit=$1
  shift
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.3
  done
}
title_is() { [[ "$(xdotool getwindowname "$win" 2>/dev/null)" == $1 ]]; }
focus_main() { xdotool windowfocus --sync "$win" 2>/dev/null || true; sleep 0.2; }
keys() { focus_main; xdotool key --clearmodifiers --delay 120 "$@"; sleep 0.3; }
# In the file dialog titled like $1: the path $2 typed over the suggested name, then Enter.
answer_dialog() {
  local dialog
  dialog=$(xdotool search --sync --limit 1 --name "$1") || return 1
  xdotool windowfocus --sync "$dialog" 2>/dev/null || true
  sleep 0.3
  xdotool key --clearmodifiers ctrl+a
  xdotool type --delay 20 "$2"
  xdotool key --clearmodifiers Return
}
launch() {
  "$app" "$@" >>"$out/app.log" 2>&1 &
  app_pid=$!
  win=$(timeout 60 xdotool search --sync --limit 1 --name "^Attention Workbench") || fail "no window within 60 s"
}
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

if [ -n "$llama" ]; then
  # shellcheck source=scripts/dev/gui-walk-long.sh
  source "$(dirname "$0")/gui-walk-long.sh"
  exit 0
fi

say "open the sample session"
launch --sample-data "$samples" --fresh
wait_for 120 title_is "Attention Workbench — default_session.json (sample_data)" || fail "title: $(xdotool getwindowname "$win")"

say "type a sentence (Ctrl+L), change layer (Ctrl+Down) and head (Ctrl+] twice), switch it off (Ctrl+T)"
sentence="the cat sat on the mat"
keys ctrl+l
xdotool type --delay 30 "$sentence"
keys Return
sleep 2
keys ctrl+Down ctrl+bracketright ctrl+bracketright ctrl+t
sleep 2

say "save the session (Ctrl+S) and read it back"
keys ctrl+s
answer_dialog "^Save session" "$out/walk.json" || fail "no Save session dialog"
wait_for 20 test -s "$out/walk.json" || fail "walk.json was not written"
wait_for 10 title_is "Attention Workbench — walk.json (*)" || fail "title after saving: $(xdotool getwindowname "$win")"
[ "$(json "$out/walk.json" "d['sentence']")" = "$sentence" ] || fail "saved sentence: $(json "$out/walk.json" "d['sentence']")"
[ "$(json "$out/walk.json" "(d['view']['layer'], d['view']['head'])")" = "(2, 1)" ] ||
  fail "saved layer and head: $(json "$out/walk.json" "(d['view']['layer'], d['view']['head'])")"
current=$(json "$out/walk.json" "d['view']['model']")
[ "$(json "$out/walk.json" "d['models'][$current]['gates'][2][1]")" = "0" ] || fail "layer 3, head 2 is not off in the saved gates"

say "run every analysis tab (Ctrl+PgDown, Ctrl+R) and export its CSV (Ctrl+E) and PNG (Ctrl+Shift+E)"
for id in stats ablate importance prune top-tokens diag-sweep training word-weights; do  # the tabs' order
  keys ctrl+Next
  keys ctrl+r
  # Exporting is refused while the tab runs (no dialog): try until the dialog comes.
  deadline=$((SECONDS + 240))
  until xdotool key --clearmodifiers ctrl+e && timeout 3 xdotool search --sync --limit 1 --name " as CSV$" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || fail "$id: no result to export within 240 s"
    focus_main
    sleep 1
  done
  answer_dialog " as CSV$" "$out/$id.csv" || fail "$id: CSV dialog"
  wait_for 20 test -s "$out/$id.csv" || fail "$id: $id.csv not written"
  keys ctrl+shift+e
  answer_dialog " as PNG$" "$out/$id.png" || fail "$id: PNG dialog"
  wait_for 20 test -s "$out/$id.png" || fail "$id: $id.png not written"
  [ "$(head -c 4 "$out/$id.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "$id: $id.png is not a PNG"
  echo "gui-walk:   $id: $(head -n 1 "$out/$id.csv" | cut -c1-100)"
done

say "save the session again (Ctrl+S) as walk_results.json: every tab's result is in it"
keys ctrl+s
answer_dialog "^Save session" "$out/walk_results.json" || fail "no Save session dialog"
wait_for 20 test -s "$out/walk_results.json" || fail "walk_results.json was not written"
results=$(json "$out/walk_results.json" "len([k for k, v in d['analyses'].items() if 'csv' in v])")
[ "$results" -ge 7 ] || fail "the saved session holds $results results"

say "quit (Ctrl+Q): the process ends"
keys ctrl+q
wait_for 30 bash -c "! kill -0 $app_pid" || fail "the window's process still runs 30 s after Ctrl+Q"
app_pid=

say "reopen the saved session and save it again: the same sentence, view, gates and results"
launch --open-session "$out/walk_results.json"
wait_for 120 title_is "Attention Workbench — walk_results.json (*)" || fail "title: $(xdotool getwindowname "$win")"
sleep 2
keys ctrl+s
answer_dialog "^Save session" "$out/walk2.json" || fail "no Save session dialog"
wait_for 20 test -s "$out/walk2.json" || fail "walk2.json was not written"
for field in "d['sentence']" "d['view']" "[m['gates'] for m in d['models']]" "sorted(k for k, v in d['analyses'].items() if 'csv' in v)"; do
  [ "$(json "$out/walk_results.json" "$field")" = "$(json "$out/walk2.json" "$field")" ] ||
    fail "reopened session differs in $field: $(json "$out/walk2.json" "$field")"
done
keys ctrl+q
wait_for 30 bash -c "! kill -0 $app_pid" || fail "the window's process still runs after Ctrl+Q"
app_pid=
echo "gui-walk: all $step steps checked"
