#!/usr/bin/env bash
# Side by side: `g16 bench prove` and `snarkjs groth16 prove` on the same
# .zkey and .wtns, same machine, one run each after g16's warm-up. Prints
# both as JSON lines and the ratio snarkjs/g16 (wall clock).
#   bench/run_prove_compare.sh circuit.zkey witness.wtns [label]
set -euo pipefail
zkey=$1; wtns=$2; label=${3:-$(basename "$(dirname "$zkey")")}
G16=${G16_BIN:-build/g16}
SNARKJS="node tests/js/node_modules/snarkjs/cli.js"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
g=$($G16 bench prove --zkey "$zkey" --wtns "$wtns" --reps ${REPS:-3} --json)
echo "$g"
t0=$(date +%s.%N)
$SNARKJS groth16 prove "$zkey" "$wtns" $tmp/p.json $tmp/q.json
t1=$(date +%s.%N)
s_ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", (b - a) * 1000}')
curve=$(echo "$g" | sed 's/.*"curve":"\([^"]*\)".*/\1/')
g_ms=$(echo "$g" | sed 's/.*"ms":\([0-9.e+]*\).*/\1/')
printf '{"bench":"prove","label":"%s","curve":"%s","backend":"snarkjs","ms":%.1f}\n' "$label" "$curve" "$s_ms"
printf '{"bench":"prove_ratio","label":"%s","curve":"%s","snarkjs_over_g16":%.2f}\n' "$label" "$curve" \
    "$(awk -v s="$s_ms" -v g="$g_ms" 'BEGIN{print s / g}')"
