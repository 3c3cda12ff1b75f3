#!/usr/bin/env bash
# Constant time in r and s: runs ctime_rs (tests/ctime_rs.c, built without
# sanitizers by CMake where valgrind's headers are) under valgrind memcheck,
# which reports every branch and memory index computed from the bytes it
# marks undefined (r, s). Any report fails the test. A second run with a
# deliberate branch on r (G16_CTIME_BRANCH=1) must be reported, so that a
# run where the marks had no effect cannot pass.
# Exit 77 (skipped) without valgrind or without the program.
set -euo pipefail
bin=${G16_BUILD_DIR:-build}/ctime_rs
if ! command -v valgrind >/dev/null; then
    echo "test_ctime: skipped: no valgrind"
    exit 77
fi
if [[ ! -x $bin ]]; then
    echo "test_ctime: skipped: $bin not built (valgrind/memcheck.h missing at configure time?)"
    exit 77
fi
log=$(mktemp /tmp/g16-ctime-XXXXXX.log)
trap 'rm -f "$log"' EXIT
# (--track-origins=yes names where a reported value came from: slower, for diagnosis.)
vg=(valgrind --tool=memcheck -q --error-exitcode=42 --num-callers=16)

rc=0
"${vg[@]}" "$bin" >"$log" 2>&1 || rc=$?
if [[ $rc -ne 0 ]]; then
    cat "$log"
    if [[ $rc -eq 42 ]]; then
        echo "test_ctime: FAIL: memcheck found code that branches on or indexes memory by r or s (above)"
    else
        echo "test_ctime: FAIL: ctime_rs exited with $rc"
    fi
    exit 1
fi
grep -q "results ok" "$log" || { cat "$log"; echo "test_ctime: FAIL: no result line"; exit 1; }
echo "test_ctime: r/s paths constant time (memcheck: no reports)"

rc=0
G16_CTIME_BRANCH=1 "${vg[@]}" "$bin" >"$log" 2>&1 || rc=$?
if [[ $rc -ne 42 ]] || ! grep -q "depends on uninitialised" "$log"; then
    cat "$log"
    echo "test_ctime: FAIL: the deliberate branch on r was not reported (rc $rc): the check is blind"
    exit 1
fi
echo "test_ctime: self-test: a deliberate branch on r is reported"
