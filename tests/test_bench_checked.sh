#!/usr/bin/env bash
# g16 bench msm and ntt check their own results: each run on both curves
# (MSM in G1 and G2, on distinct bases of known logs, with uniform and with
# filecoin-profile scalars) must exit 0 and report "checked":true with
# min <= median <= max over its reps; a log-n outside 1..30 is refused
# (exit 2).
set -euo pipefail
G16_BIN=${G16_BIN:-build/g16}
fail() { echo "test_bench_checked.sh: $*" >&2; exit 1; }
check() { # bench json
    python3 - "$1" "$2" <<'PY' || fail "bad report of $1: $2"
import json, sys
for line in sys.argv[2].splitlines():
    r = json.loads(line)
    assert r["checked"] is True, r
    assert 0 < r["min_ms"] <= r["median_ms"] <= r["max_ms"], r
    assert r["reps"] >= 3, r
PY
}
for c in bn254 bls12-381; do
    for g in g1 g2; do
        out=$("$G16_BIN" bench msm --curve "$c" --group "$g" --log-n 9 --reps 3 --threads 2 --json 2>/dev/null) ||
            fail "bench msm $c $g failed"
        check "msm $c $g" "$out"
    done
    out=$("$G16_BIN" bench msm --curve "$c" --log-n 10 --reps 3 --profile filecoin --json 2>/dev/null) ||
        fail "bench msm $c filecoin failed"
    check "msm $c filecoin" "$out"
    out=$("$G16_BIN" bench ntt --curve "$c" --log-n 11 --reps 3 --json 2>/dev/null) || fail "bench ntt $c failed"
    check "ntt $c" "$out"
done
set +e
for bad in "msm --log-n 0" "msm --log-n 31" "ntt --log-n 31"; do
    # shellcheck disable=SC2086
    "$G16_BIN" bench $bad --json >/dev/null 2>&1
    rc=$?
    [ $rc = 2 ] || fail "bench $bad: exit $rc, expected 2"
done
echo "test_bench_checked.sh: ok"
