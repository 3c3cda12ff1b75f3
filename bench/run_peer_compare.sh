#!/usr/bin/env bash
# Runs `g16 bench ntt|msm` and the ffjavascript peer (bench/peers/ffjs_bench.mjs)
# on the same sizes and prints the ratios peer/g16 (> 1: g16 is faster) of the
# wall time and of the process CPU time (the latter is the steadier figure on a
# machine shared with other work).
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
# "ms cpu_ms" of the first msm/ntt record (reads all input: no SIGPIPE upstream)
ms_of() { python3 -c 'import json,sys
out=None
for l in sys.stdin:
    l=l.strip()
    if l.startswith("{") and out is None:
        r=json.loads(l)
        if r["bench"] in ("msm","ntt"): out="%s %s" % (r["ms"], r.get("cpu_ms", 0))
print(out)'; }
printf '%-4s %-10s %-3s %-6s %10s %10s %8s %10s %10s %8s\n' what curve grp size g16_ms ffjs_ms ratio g16_cpu ffjs_cpu cpu_ratio
for c in $CASES; do
    IFS=: read -r what curve group logn <<<"$c"
    gargs=(--curve "$curve" --log-n "$logn" --threads "$THREADS" --json)
    pargs=(--curve "$curve" --log-n "$logn")
    if [ "$group" != "-" ]; then gargs+=(--group "$group"); pargs+=(--group "$group"); fi
    read -r g gc < <("$G16" bench "$what" "${gargs[@]}" | tee -a /dev/stderr | ms_of)
    read -r p pc < <(node bench/peers/ffjs_bench.mjs "$what" "${pargs[@]}" | tee -a /dev/stderr | ms_of)
    printf '%-4s %-10s %-3s 2^%-4s %10.1f %10.1f %7.1fx %10.1f %10.1f %7.1fx\n' "$what" "$curve" "$group" \
        "$logn" "$g" "$p" "$(python3 -c "print($p/$g)")" "$gc" "$pc" "$(python3 -c "print($pc/max($gc,0.1))")"
done
