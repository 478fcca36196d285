#!/usr/bin/env bash
# README command 2: install what is missing, build, and run the whole test suite through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DWITH_TESTS=ON -DUNITY_LIBRARIES=ON  # a build from scratch: the LibTorch libraries in unity units (docs/testing.md)
cd build
ctest --output-on-failure --parallel "$(nproc 2>/dev/null || echo 2)" --timeout 900
