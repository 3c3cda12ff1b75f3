#!/usr/bin/env bash
# The whole test suite: dependencies, an ASan/UBSan build, and ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)
# G16_VERIFY compiles in the internal invariant checks (G16_VERIFY_CHECK).
# The CUDA backend is compiled when nvcc exists (to PTX only here: no GPU runs
# in CI, and ptxas's sm_90 code generation takes many minutes on 2 cores; the
# GPU machine builds sm_90, see docs/gpu.md). Its tests report skipped.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DG16_SANITIZE=ON -DG16_VERIFY=ON \
      -DG16_CUDA_ARCHITECTURES=90-virtual >/dev/null
cmake --build build-asan -j"$jobs"
# The PostgreSQL job-store tests (tests/daemon/test_store.c, test_daemon_pg.sh)
# run against a throwaway server when PostgreSQL is installed; a server that
# does not start fails the run instead of letting those tests skip.
root=$(pwd)
if [[ -z ${G16_TEST_PG_URL:-} ]] && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    pg_dir=$(mktemp -d /tmp/g16-pg-XXXXXX)
    trap '"$root/scripts/pg-test-server.sh" stop "$pg_dir"; rm -rf "$pg_dir"' EXIT
    if ! G16_TEST_PG_URL=$(scripts/pg-test-server.sh start "$pg_dir"); then
        echo "test.sh: PostgreSQL is installed but the test server did not start" >&2
        exit 1
    fi
    export G16_TEST_PG_URL
    echo "test.sh: PostgreSQL test server at $G16_TEST_PG_URL"
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd build-asan
ctest --output-on-failure -j"$jobs" "$@"
