#!/usr/bin/env bash
# The whole test suite: dependencies, an ASan/UBSan build, and ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)
# The CUDA backend is compiled when nvcc exists (to PTX only here: no GPU runs
# in CI, and ptxas's sm_90 code generation takes many minutes on 2 cores; the
# GPU machine builds sm_90, see docs/gpu-notes.md). Its tests report skipped.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DG16_SANITIZE=ON \
      -DG16_CUDA_ARCHITECTURES=90-virtual >/dev/null
cmake --build build-asan -j"$jobs"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd build-asan
ctest --output-on-failure -j"$jobs" "$@"
