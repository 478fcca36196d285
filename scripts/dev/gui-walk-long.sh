# scripts/dev/gui-walk-long.sh — the long walk of scripts/dev/gui-walk.sh (sourced by it, with its
# helpers and $app, $samples, $out and $llama set): seven models, an 8,192-token text from a file on the
# llama layout in $llama, a cancelled and a finished run, zoom to full resolution and back, each compared
# model's error over its map, Ctrl+Q. Every check reads the window's visible texts (visible_texts.h).

repo=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../..")
llama_name=$(basename "$llama")
layers=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['num_hidden_layers'])" "$llama/config.json")
# The 1B layout computes in BF16 from its mapped weights (as attention-cli --dtype bf16); a small one in F32.
dtype=f32 run_limit=300
if [ "$layers" -ge 16 ]; then dtype=bf16 run_limit=3600; fi

# 8,192 tokens in the llama3 tokenizer the layouts carry: the start token, "the" (two tokens: no space
# before it), then words of one token each after a space (bench/bench_gui_long_text.cpp's text).
python3 - "$out/long_text.txt" <<'PY'
import random, sys
random.seed(1)
words = ["the", "and", "she", "was", "you", "tab"]
open(sys.argv[1], "w").write(" ".join(["the"] + [random.choice(words) for _ in range(3, 8192)]) + "\n")
PY

export AW_VISIBLE_TEXT_DUMP=$out/visible.txt
# The window's visible texts now, in $out/visible.txt (Ctrl+Alt+Shift+D writes them).
texts() {
  rm -f "$out/visible.txt"
  focus_main
  xdotool key --clearmodifiers ctrl+alt+shift+d
  local waited
  for waited in $(seq 50); do [ -s "$out/visible.txt" ] && cp "$out/visible.txt.png" "$out/step$step.png" && return 0; sleep 0.1; done
  return 1
}
shows() { texts && grep -qF -- "$1" "$out/visible.txt"; }
# The line showing $1 is on screen and not cut (visible_texts.h marks a cut one "[cut]").
whole() {
  local line
  line=$(grep -F -- "$1" "$out/visible.txt" | head -n 1)
  [ -n "$line" ] || fail "\"$1\" is not on screen"
  [[ "$line" != *"[cut]" ]] || fail "\"$1\" is cut: $line"
}
# The centre of the first visible widget whose line starts with $1, as "x y" on the screen.
centre_of() {
  grep -m 1 -E -- "^$1" "$out/visible.txt" | sed -E 's/^[^@]*@([0-9-]+),([0-9-]+),([0-9]+),([0-9]+):.*/\1 \2 \3 \4/' |
    awk '{ print int($1 + $3 / 2), int($2 + $4 / 2) }'
}
click_at() { xdotool mousemove --sync "$1" "$2" click 1; sleep 0.4; }
# In the Attention tab's chooser $1 (its object name), the model whose name starts with $2.
choose_model() {
  texts || fail "no visible texts"
  local at
  at=$(centre_of "ComboBox $1 ") && [ -n "$at" ] || fail "no $1 chooser on screen"
  # shellcheck disable=SC2086
  click_at $at
  xdotool type --delay 40 "$2"
  xdotool key Return
  sleep 0.5
}

models=("$samples/vanilla_lm" "$samples/bet_sf" "$samples/lama_amazon" "$samples/mt_vanilla" "$samples/induction_lm"
        "$repo/tests/fixtures/hf_models/qwen2" "$llama")
say "open seven models: five native, a Hugging Face qwen2 and the llama layout $llama_name ($dtype)"
model_options=()
for model in "${models[@]}"; do model_options+=(--model "$model"); done
launch --fresh --dtype "$dtype" "${model_options[@]}"
wait_for 600 shows "7 models" || fail "the status bar does not say 7 models: $(grep -i models "$out/visible.txt")"
whole "LAMA words"  # the tab bar's last tab: every title whole beside seven models
grep -q "^TabBar .*\[cut\]" "$out/visible.txt" && fail "the tabs are cut: $(grep '^TabBar' "$out/visible.txt")"
grep -q "^ComboBox model .*: $llama_name" "$out/visible.txt" || fail "the llama layout is not the chosen model"

say "open the 8,192-token text (Ctrl+Shift+O) and cancel its run (Ctrl+.) once a layer is done"
keys ctrl+shift+o
answer_dialog "^Open text file" "$out/long_text.txt" || fail "no Open text file dialog"
wait_for 600 shows " of $layers layers" || fail "no progress over the map: $(grep -i running "$out/visible.txt")"
whole "Running $llama_name"
keys ctrl+period
wait_for 120 shows "the run was cancelled" || fail "the map does not say the run was cancelled"
whole "the run was cancelled"

say "run it again (Enter) to the end: the whole map, in blocks"
keys ctrl+l Return
wait_for "$run_limit" shows "means of 8 × 8-token blocks" || fail "no map of the long text within $run_limit s"
whole "means of 8 × 8-token blocks"
grep -q "^ComboBox after_token .*: 8192: " "$out/visible.txt" || fail "Predictions are not after the last token: $(grep after_token "$out/visible.txt")"

say "zoom in by the wheel to full resolution, and back to the whole map by a double-click"
read -r x y < <(centre_of "MapTitle ")
[ -n "${x:-}" ] || fail "no map on screen"
xdotool mousemove --sync "$x" "$y"
for _ in $(seq 14); do xdotool click 4; sleep 0.15; done
wait_for 120 shows "at full resolution" || fail "the zoom did not reach full resolution: $(grep '^MapTitle' "$out/visible.txt")"
whole "at full resolution"
xdotool click --repeat 2 --delay 60 1
wait_for 60 shows "means of 8 × 8-token blocks" || fail "the double-click did not show the whole map again"
grep -q "^ComboBox after_token .*: 8192: " "$out/visible.txt" || fail "the double-click moved Predictions: $(grep after_token "$out/visible.txt")"

say "compare vanilla_lm with induction_lm on the long text: each map says why it is empty, whole"
choose_model model vanilla
texts || fail "no visible texts"
read -r x y < <(centre_of "Button compare ")
[ -n "${x:-}" ] || fail "no Compare check box on screen"
click_at "$x" "$y"
choose_model compare_model induction
wait_for 120 shows "induction_lm could not run this text" || fail "induction_lm's map does not say why it is empty"
wait_for 10 shows "vanilla_lm could not run this text" || fail "vanilla_lm's map does not say why it is empty"
whole "vanilla_lm could not run this text"
whole "induction_lm could not run this text"
grep -q "^ErrorLine .*\[cut\]" "$out/visible.txt" && echo "gui-walk:   (the error line is elided; its tooltip holds it whole)"

say "quit (Ctrl+Q): the process ends"
keys ctrl+q
wait_for 60 bash -c "! kill -0 $app_pid" || fail "the window's process still runs 60 s after Ctrl+Q"
app_pid=
echo "gui-walk: all $step steps of the long walk checked"
