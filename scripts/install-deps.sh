#!/usr/bin/env bash
# Installs what Attention Workbench needs, skipping what is already there: the Debian 12 packages, then
# the engine — PyTorch's LibTorch from its PyPI wheel, into .venv/ (scripts/install-engine.sh).
# Usage: scripts/install-deps.sh [--no-gui] [--fuzz]   (run as root, or with sudo available)
#   --fuzz: also clang and libFuzzer for scripts/dev/fuzz.sh (and Qt 6 Core for the session-file target)
set -euo pipefail

packages=(build-essential cmake pkg-config git python3 python3-venv
          nlohmann-json3-dev libspdlog-dev libfmt-dev libpcre2-dev libicu-dev libsentencepiece-dev
          libgtest-dev libgmock-dev libbenchmark-dev)
gui=1 fuzz=0
for arg in "$@"; do
  case "$arg" in
    --no-gui) gui=0 ;;
    --fuzz) fuzz=1 ;;
    *) echo "install-deps: unknown option '$arg' (use --no-gui, --fuzz)" >&2; exit 2 ;;
  esac
done
if [ "$gui" -eq 1 ]; then
  packages+=(qt6-base-dev qt6-svg-dev libqcustomplot-dev libgl-dev fonts-dejavu-core xvfb xfonts-base xauth xdotool)
fi
if [ "$fuzz" -eq 1 ]; then
  packages+=(clang libclang-rt-14-dev libfuzzer-14-dev qt6-base-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} Debian packages present"
else
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

"$(dirname "$0")/install-engine.sh"
