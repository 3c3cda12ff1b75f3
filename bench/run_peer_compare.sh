#!/usr/bin/env bash
# Runs `g16 bench ntt|msm` and the ffjavascript peer (bench/peers/ffjs_bench.mjs)
# on the same sizes and prints the time ratio peer/g16 (> 1: g16 is faster).
#   bench/run_peer_compare.sh [path/to/g16]
# Env: CASES (default below; each what:curve:group:log_n, group "-" for ntt),
#      THREADS (g16 --threads; default all CPUs, as ffjavascript uses).
# Needs `npm ci --prefix tests/js` (ffjavascript comes with snarkjs).
set -euo pipefail
cd "$(dirname "$0")/.."
G16=${1:-${G16_BIN:-build-rel/g16}}
CASES=${CASES:-"msm:bn254:g1:16 msm:bls12-381:g1:16 msm:bn254:g2:16 msm:bls12-381:g2:16 ntt:bn254:-:16 ntt:bls12-381:-:16 msm:bn254:g1:20 msm:bls12-381:g1:20 ntt:bn254:-:20 ntt:bls12-381:-:20"}
THREADS=${THREADS:-0}
[ -x "$G16" ] || { echo "run_peer_compare: no g16 binary at $G16" >&2; exit 2; }
[ -d tests/js/node_modules/ffjavascript ] || { echo "run_peer_compare: run npm ci --prefix tests/js" >&2; exit 2; }
ms_of() { python3 -c 'import json,sys
for l in sys.stdin:
    l=l.strip()
    if l.startswith("{"):
        r=json.loads(l)
        if r["bench"] in ("msm","ntt"): print(r["ms"]); break'; }
printf '%-4s %-10s %-3s %-6s %12s %12s %8s\n' what curve grp size g16_ms ffjs_ms ratio
for c in $CASES; do
    IFS=: read -r what curve group logn <<<"$c"
    gargs=(--curve "$curve" --log-n "$logn" --threads "$THREADS" --json)
    pargs=(--curve "$curve" --log-n "$logn")
    if [ "$group" != "-" ]; then gargs+=(--group "$group"); pargs+=(--group "$group"); fi
    g=$("$G16" bench "$what" "${gargs[@]}" | tee /dev/stderr | ms_of)
    p=$(node bench/peers/ffjs_bench.mjs "$what" "${pargs[@]}" | tee /dev/stderr | ms_of)
    printf '%-4s %-10s %-3s 2^%-4s %12.1f %12.1f %7.1fx\n' "$what" "$curve" "$group" "$logn" "$g" "$p" \
        "$(python3 -c "print($p/$g)")"
done
