#!/usr/bin/env bash
# tests/architecture.sh — the include rules of docs/architecture.md ("Layers and folders"), checked
# on every #include of the tree: app -> widgets, app -> analysis -> models, and LibTorch kept out
# of widgets/ and of the window code (app/gui/ but its session library). Prints each broken rule as
# "file:line: rule" and exits 1; exit 0 when the code matches the drawing.
# Usage: tests/architecture.sh [SOURCE_DIR]
set -uo pipefail
cd "${1:-$(dirname "$0")/..}" || exit 2
broken=0

# forbid DIR REGEX RULE [EXCEPT]: no file under DIR may include a header matching REGEX.
forbid() {
  local dir=$1 pattern=$2 rule=$3 except=${4:-^$}
  while IFS= read -r hit; do
    [[ -z "$hit" || "$hit" =~ $except ]] && continue
    echo "$hit: $rule"
    broken=1
  done < <(grep -rnE --include='*.h' --include='*.cpp' "^#include [<\"]($pattern)" "$dir")
}

forbid table    'models/|analysis/|app/|widgets/|torch/|ATen/|c10/|Q[A-Za-z]*[>"]|qcustomplot' "table/ is plain C++ (and nlohmann/json)"
forbid models   'analysis/|app/|widgets/|table/|Q[A-Za-z]*[>"]|qcustomplot' "models/ includes only LibTorch and libraries"
forbid analysis 'app/|widgets/|Q[A-Za-z]*[>"]|qcustomplot' "analysis/ never includes Qt, widgets/ or app/"
# Inside analysis/: data/ is the ground floor (what every corpus analysis consumes), then statistics/
# and core/ (the contract, settings, data reading); the mechanism folders build on them, never the
# other way round.
mechanisms=$(cd analysis && for dir in */; do dir=${dir%/}; case $dir in core|statistics|data) ;; *) printf '%s|' "$dir" ;; esac; done)
mechanisms="analysis/(${mechanisms%|})/"
forbid analysis/data       "analysis/(core|statistics)/|$mechanisms" "analysis/data/ is the ground floor: it includes no other analysis folder"
forbid analysis/statistics "analysis/core/|$mechanisms" "analysis/statistics/ includes only analysis/data/ below it"
forbid analysis/core       "$mechanisms" "analysis/core/ includes no mechanism folder (only data/ and statistics/)"
forbid widgets  'models/|analysis/|app/|torch/|ATen/|c10/' "widgets/ never includes LibTorch or the layers above models"
forbid app/cli  'app/gui/|widgets/|Q[A-Za-z]*[>"]|qcustomplot' "the CLI never includes Qt or the GUI"
forbid app/gui  'app/cli/' "the GUI never includes the CLI"
forbid app/plot 'models/|analysis/|app/cli/|app/gui/|torch/|ATen/|c10/' "attention-plot draws CSVs: widgets/, table/ and Qt only"
# The session library (aw_gui_session: model_session*.cpp, session_tensors.h, token_display.cpp) is the
# window's one bridge to the models; the rest of app/gui/ sees them through model_session.h.
bridge='^app/gui/(model_session|model_session_files|session_tensors|token_display)\.(cpp|h):'
forbid app/gui  'torch/|ATen/|c10/' "only the session library (model_session*.cpp, session_tensors.h) includes LibTorch in app/gui/" \
  '^app/gui/(model_session|model_session_files|session_tensors)\.(cpp|h):'
# The window code may include only the LibTorch-free headers of the layers below.
forbid app/gui  'analysis/' "app/gui/ includes only analysis/core/descriptor.h and analysis/core/registry.h (no LibTorch)" \
  "$bridge|\"analysis/core/(descriptor|registry)\\.h\""
forbid app/gui  'models/' "app/gui/ includes only models/errors.h and models/attention_kind.h (no LibTorch)" \
  "$bridge|\"models/(errors|attention_kind)\\.h\""
# The LibTorch-free headers must stay so.
for header in analysis/core/descriptor.h analysis/core/registry.h models/progress.h models/errors.h models/attention_kind.h \
              table/*.h; do
  if grep -nE '^#include [<"](torch/|ATen/|c10/|models/(nn|checkpoint|text|training)/)' "$header"; then
    echo "$header: must not include LibTorch (the window code includes it)"
    broken=1
  fi
done

[ "$broken" -eq 0 ] && echo "architecture: every include follows docs/architecture.md"
exit "$broken"
