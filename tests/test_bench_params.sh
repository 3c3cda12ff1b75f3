#!/usr/bin/env bash
# g16 bench params: makes a porep-profile key and partition at 2^10, proves
# twice on the CPU, verifies each proof, prints one JSON line with the
# figures; the same with the circuit and partition in memory (--synthetic)
# and an engine job of 3 partitions (--partitions, its stage spans with
# --timeline); --key without
# --assignment and an unknown backend are usage errors, --backend cuda
# without a GPU an error (exit 2).
set -euo pipefail
G16_BIN=${G16_BIN:-build/g16}
fail() { echo "test_bench_params.sh: $*" >&2; exit 1; }
out=$("$G16_BIN" bench params --log-n 10 --reps 2 --seed 3 --json 2>/dev/null) || fail "bench params failed"
python3 - "$out" <<'PY' || fail "bad report: $out"
import json, sys
r = json.loads(sys.argv[1])
assert r["bench"] == "params" and r["curve"] == "bls12-381" and r["backend"] == "cpu", r
assert r["profile"] == "porep" and r["log_n"] == 10 and r["reps"] == 2 and r["verified"] == 2, r
assert r["constraints"] == round(130278869 * 2**10 / 2**27) and r["inputs"] == 30, r
assert 0 < r["min_ms"] <= r["ms"] <= r["max_ms"] and r["key_load_ms"] > 0, r
assert r["rss_peak_kb"] > 0 and r["rss_key_load_kb"] > 0, r
PY
tl=$(mktemp)
trap 'rm -f "$tl"' EXIT
out=$("$G16_BIN" bench params --log-n 10 --reps 1 --seed 3 --synthetic --partitions 3 --timeline "$tl" --json \
    2>/dev/null) || fail "bench params --synthetic --partitions failed"
python3 - "$out" "$tl" <<'PY' || fail "bad report: $out"
import json, sys
r = json.loads(sys.argv[1])
assert r["profile"] == "porep-in-memory" and r["verified"] == 1, r
assert r["constraints"] == round(130278869 * 2**10 / 2**27) and r["inputs"] == 30, r
assert r["job_partitions"] == 3 and r["job_ms"] > 0 and r["job_budget_peak_mb"] > 0, r
# --timeline: the engine's stage spans, each partition of the 3-partition
# job (after the one-partition warm-up job) through its device stage
ev = [json.loads(l) for l in open(sys.argv[2])]
last = max(e["job"] for e in ev)
parts = {e["part"] for e in ev if e["job"] == last and e["ev"] == "device" and e["ph"] == "E"}
assert parts == {0, 1, 2}, parts
PY
set +e
"$G16_BIN" bench params --key x.params --reps 1 >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "--key without --assignment: rc $rc"
"$G16_BIN" bench params --log-n 10 --backend gpu >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "--backend gpu: rc $rc"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    "$G16_BIN" bench params --log-n 10 --backend cuda >/dev/null 2>&1; rc=$?
    [ $rc = 2 ] || fail "--backend cuda without a GPU: rc $rc"
fi
"$G16_BIN" bench params --key /nonexistent.params --assignment /nonexistent.assignment >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "missing key: rc $rc"
echo "test_bench_params.sh: ok"
