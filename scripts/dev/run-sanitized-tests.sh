#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UBSan: installs what is missing, builds everything
# into build-asan/ (RelWithDebInfo, -DSANITIZE=address,undefined) and runs ctest there. Any ASan or
# UBSan report, or a leak not listed in fuzz/lsan.supp (libraries' own start-up allocations), fails
# the test it happens in. docs/reliability.md says what is skipped and why.
# Usage: scripts/dev/run-sanitized-tests.sh [extra ctest arguments, e.g. -R Checkpoint]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
scripts/install-deps.sh
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSANITIZE=address,undefined -DWITH_TESTS=ON \
  -DWITH_BENCH=OFF "${launcher[@]}" >/dev/null
cmake --build build-asan --parallel "$(nproc 2>/dev/null || echo 2)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/fuzz/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd build-asan
ctest --output-on-failure --parallel "$(nproc 2>/dev/null || echo 2)" --timeout 2400 "$@"
