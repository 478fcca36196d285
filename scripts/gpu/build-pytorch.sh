#!/usr/bin/env bash
# For a lent GPU machine only (a workstation with a GPU needs just the README's two commands): configures
# and builds build-torch/ against the LibTorch of whichever python3 has torch there (the machine's own;
# PYTHON=... picks another) instead of the project's .venv/, GUI off, core tests and benches on,
# Release, with ninja when present and every core. Extra arguments go to cmake.
# With .deps/root (scripts/gpu/fetch-gpu-deps.sh; unpacked here from .deps/root.tar.xz when only that
# travelled) the other dependencies come from there and not from the system: the programs carry an
# RPATH into it (DT_RPATH, which also serves their libraries' own dependencies), so they and the
# tests run without LD_LIBRARY_PATH. TARGET=attention-cli builds that target alone (scripts/gpu/gpu-train.sh).
# Usage: scripts/gpu/build-pytorch.sh [cmake options]
set -euo pipefail
cd "$(dirname "$0")/../.."
python=${PYTHON:-python3}
build=build-torch

torch_root=$("$python" -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null) ||
  { echo "build-pytorch: $python cannot import torch (set PYTHON to one that can)" >&2; exit 1; }
# torch's own root first, so that LibTorch's find_library calls see its lib/ before the system's.
prefixes="$torch_root;$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)"

args=(-DCMAKE_BUILD_TYPE=Release -DWITH_GUI=OFF -DWITH_TESTS=ON -DWITH_BENCH=ON)
if [ ! -d .deps/root ] && [ -f .deps/root.tar.xz ]; then
  tar -C .deps -xJf .deps/root.tar.xz
fi
if [ -d .deps/root/usr ]; then
  deps=$PWD/.deps/root/usr
  prefixes="$prefixes;$deps"
  # Only .deps's pkg-config files: the system's would name /usr's headers.
  export PKG_CONFIG_LIBDIR=$deps/lib/x86_64-linux-gnu/pkgconfig
  rpath="-Wl,--disable-new-dtags"
  args+=(-DCMAKE_BUILD_RPATH="$deps/lib/x86_64-linux-gnu" -DCMAKE_EXE_LINKER_FLAGS="$rpath"
         -DCMAKE_SHARED_LINKER_FLAGS="$rpath" -DCMAKE_MODULE_LINKER_FLAGS="$rpath")
  echo "build-pytorch: dependencies from $deps"
fi
args+=(-DCMAKE_PREFIX_PATH="$prefixes" -DTorch_DIR="$torch_root/share/cmake/Torch")

generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
# A cache made with the other generator cannot be reconfigured, and one made with other prefixes
# keeps the packages it found there (Debian's /usr instead of .deps): start it again. Objects stay,
# and only those whose command line changed are rebuilt.
if [ -f $build/CMakeCache.txt ]; then
  cached_generator=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' $build/CMakeCache.txt)
  cached_prefixes=$(sed -n 's/^CMAKE_PREFIX_PATH:[A-Z]*=//p' $build/CMakeCache.txt)
  if [ "$cached_generator" != "${generator[1]:-Unix Makefiles}" ] || [ "$cached_prefixes" != "$prefixes" ]; then
    rm -rf $build/CMakeCache.txt $build/CMakeFiles
  fi
fi

echo "build-pytorch: torch $("$python" -c 'import torch; print(torch.__version__, "CUDA", torch.version.cuda)' 2>/dev/null) at $torch_root"
cmake -S . -B $build ${generator[@]+"${generator[@]}"} "${args[@]}" "$@"
# TARGET may name several, space-separated.
# shellcheck disable=SC2086
cmake --build $build --parallel "${JOBS:-$(nproc 2>/dev/null || echo 2)}" ${TARGET:+--target $TARGET}

# Every library the CLI needs must resolve, from .deps where it is used.
if [ -f $build/app/attention-cli ] && ldd $build/app/attention-cli | grep 'not found'; then
  echo "build-pytorch: $build/app/attention-cli has unresolved libraries (above)" >&2
  exit 1
fi
echo "build-pytorch: built $build/ (${TARGET:-attention-cli, tests, benches})"
