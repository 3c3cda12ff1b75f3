#!/usr/bin/env bash
# The porep synthetic profile (docs/groth16.md "Synthetic circuits"):
#   - at 2^14 its circuit has the stated shape: 15,903 constraints
#     (130,278,869 scaled by 2^(14-27), rounded), 327 public wires (328
#     bellperson inputs), aux density in A 99.7% and in B 25.4%, 90% of aux
#     values 0/1 (within 0.5 / 1 / 1 percentage points), and the partition
#     written by --assignment carries the same counts;
#   - at 2^11 (scaled inputs) the partition proves through --params and both
#     `g16 verify --params` and the @noble/curves verifier accept the proof.
# Needs node and `npm ci --prefix tests/js`; fails (not skips) without them.
set -euo pipefail
cd "$(dirname "$0")/.."
G16_BIN=${G16_BIN:-build/g16}
command -v node >/dev/null 2>&1 || { echo "test_synth_porep.sh: node not found" >&2; exit 1; }
[ -d tests/js/node_modules/@noble/curves ] || { echo "test_synth_porep.sh: run 'npm ci --prefix tests/js'" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test_synth_porep.sh: $*" >&2; exit 1; }
seed=${G16_TEST_SEED:-$(( $(date +%s) % 100000 ))}
echo "test_synth_porep.sh: seed $seed"

"$G16_BIN" synth --curve bls12-381 --log-n 14 --profile porep --seed "$seed" --out "$tmp/c.r1cs" \
    --witness "$tmp/w.wtns" --assignment "$tmp/p.assignment" >"$tmp/synth.json"
python3 - "$tmp/synth.json" <<'PY' || fail "shape: $(cat "$tmp/synth.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["constraints"] == round(130278869 * 2**14 / 2**27) == 15903, s["constraints"]
assert s["public"] == 327, s["public"]
for key, want, tol in (("a_aux_density", 0.997, 0.005), ("b_aux_density", 0.254, 0.01),
                       ("aux_zero_one_fraction", 0.90, 0.01)):
    assert abs(s[key] - want) <= tol, (key, s[key], want)
PY
"$G16_BIN" info "$tmp/p.assignment" >"$tmp/info.txt"
aux=$(awk -F': ' '$1 == "aux" {print $2}' "$tmp/info.txt")
rows=$(awk -F': ' '$1 == "rows (abc_size)" {print $2}' "$tmp/info.txt")
[ "$rows" = $((15903 + 328)) ] || fail "rows $rows: $(cat "$tmp/info.txt")"
grep -qF "inputs: 328" "$tmp/info.txt" || fail "inputs: $(cat "$tmp/info.txt")"
grep -qF "domain: 16384" "$tmp/info.txt" || fail "domain: $(cat "$tmp/info.txt")"
pa=$(sed -n 's/^a_aux density: \([0-9]*\) of .*/\1/p' "$tmp/info.txt")
pb=$(sed -n 's/^b_aux density: \([0-9]*\) of .*/\1/p' "$tmp/info.txt")
python3 -c "
a, b, n = $pa, $pb, $aux
assert abs(a / n - 0.997) <= 0.005 and abs(b / n - 0.254) <= 0.01, (a / n, b / n)
" || fail "assignment densities $pa, $pb of $aux"

# a small partition proves and verifies (g16 and noble)
"$G16_BIN" synth --curve bls12-381 --log-n 11 --profile porep --seed "$seed" --out "$tmp/s.r1cs" \
    --witness "$tmp/s.wtns" --assignment "$tmp/s.assignment" >/dev/null
"$G16_BIN" setup --insecure-test-setup --format params "$tmp/s.r1cs" "$tmp/s.params" --seed "$seed" >/dev/null 2>&1
"$G16_BIN" prove --params "$tmp/s.params" "$tmp/s.assignment" "$tmp/proof.bin" "$tmp/public.json"
"$G16_BIN" verify --params "$tmp/s.vk" "$tmp/public.json" "$tmp/proof.bin" >/dev/null || fail "g16 verify rejects"
node tests/vectors/verify_params.mjs "$tmp/s.vk" "$tmp/public.json" "$tmp/proof.bin" >/dev/null \
    || fail "noble rejects the porep proof"
echo "test_synth_porep.sh: ok"
