#!/usr/bin/env bash
# Installs the Debian 12 packages Attention Workbench needs, skipping the ones already present.
# Usage: scripts/install-deps.sh [--no-gui]   (run as root, or with sudo available)
set -euo pipefail

packages=(build-essential cmake pkg-config git
          libtorch-dev libopenblas0-pthread
          nlohmann-json3-dev libspdlog-dev libfmt-dev libpcre2-dev libicu-dev libsentencepiece-dev
          libgtest-dev libgmock-dev libbenchmark-dev)
if [ "${1:-}" != "--no-gui" ]; then
  packages+=(qt6-base-dev libqcustomplot-dev libgl-dev fonts-dejavu-core)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
