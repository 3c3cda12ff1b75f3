#!/usr/bin/env bash
# test_interop_fixtures.sh -- the circom/snarkjs fixture pipeline is sane.
#
# Builds (or reuses, cached) the interop fixtures of scripts/interop/
# build_fixtures.sh for both curves and checks, with snarkjs as the oracle:
#   - every fixture proof verifies against its verification key;
#   - tampered public inputs and a proof checked against the other curve's
#     key are rejected (the checks can fail);
#   - fast_ptau.mjs's prepared ptau equals snarkjs prepare phase2's output;
#   - scripts/interop/snarkjs_prove_rs.mjs with fixed r, s gives exactly the
#     proof that snarkjs's own prover gives with the same r, s, and its proofs
#     with random r, s verify.
# Needs node and `npm ci --prefix tests/js`; FAILS (does not skip) without
# them, since CI must not silently lose the interop tests.
# env: G16_INTEROP_CACHE (fixture cache, default .cache/interop)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

fail() { echo "test_interop_fixtures: FAIL: $*" >&2; exit 1; }
command -v node >/dev/null || fail "node not found"
[ -x tests/js/node_modules/.bin/snarkjs ] || fail "tests/js/node_modules missing: run npm ci --prefix tests/js"

CACHE="${G16_INTEROP_CACHE:-.cache/interop}"
CURVES="bn128 bls12381"
CIRCUITS="multiplier poseidon sha256"
scripts/interop/build_fixtures.sh --cache "$CACHE" --curves "$CURVES" --circuits "$CIRCUITS" ||
    fail "build_fixtures.sh"

SNARKJS="node tests/js/node_modules/.bin/snarkjs"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
n=0
verify() { $SNARKJS groth16 verify "$1" "$2" "$3" >"$TMP/v.log" 2>&1; }

for curve in $CURVES; do
    for c in $CIRCUITS; do
        d="$CACHE/$curve/$c"
        for f in circuit.r1cs circuit.wasm circuit.zkey witness.wtns vk.json proof.json public.json input.json; do
            [ -s "$d/$f" ] || fail "$d/$f missing"
        done
        verify "$d/vk.json" "$d/public.json" "$d/proof.json" || fail "$curve/$c: snarkjs proof does not verify"
        grep -q '"curve": "'"$curve"'"' "$d/vk.json" || fail "$curve/$c: vk.json curve field"
        n=$((n + 1))

        # tampered public input: first public signal + 1
        node -e '
const fs = require("fs"); const p = JSON.parse(fs.readFileSync(process.argv[1]));
p[0] = (BigInt(p[0]) + 1n).toString(); fs.writeFileSync(process.argv[2], JSON.stringify(p));' \
            "$d/public.json" "$TMP/bad_public.json"
        if verify "$d/vk.json" "$TMP/bad_public.json" "$d/proof.json"; then
            fail "$curve/$c: tampered public input accepted"
        fi
        n=$((n + 1))

        # explicit r, s: ours == snarkjs's own prover, byte for byte
        for rs in "0 0" "1 2" "987654321987654321987654321 0x1234567890abcdef1234567890abcdef"; do
            set -- $rs
            node scripts/interop/snarkjs_prove_rs.mjs "$d/circuit.zkey" "$d/witness.wtns" \
                "$TMP/a.json" "$TMP/a_pub.json" --r "$1" --s "$2" || fail "$curve/$c: snarkjs_prove_rs"
            node scripts/interop/snarkjs_prove_rs.mjs "$d/circuit.zkey" "$d/witness.wtns" \
                "$TMP/b.json" "$TMP/b_pub.json" --r "$1" --s "$2" --via-snarkjs || fail "$curve/$c: snarkjs_prove_rs --via-snarkjs"
            cmp -s "$TMP/a.json" "$TMP/b.json" || fail "$curve/$c r=$1 s=$2: proof differs from snarkjs's"
            cmp -s "$TMP/a_pub.json" "$TMP/b_pub.json" || fail "$curve/$c: public signals differ from snarkjs's"
            n=$((n + 1))
            # only the cheap circuits for the extra r, s pairs
            [ "$c" = sha256 ] && break
        done
        verify "$d/vk.json" "$TMP/a_pub.json" "$TMP/a.json" || fail "$curve/$c: snarkjs_prove_rs proof (fixed r, s) does not verify"
        node scripts/interop/snarkjs_prove_rs.mjs "$d/circuit.zkey" "$d/witness.wtns" \
            "$TMP/r.json" "$TMP/r_pub.json" 2>/dev/null || fail "$curve/$c: snarkjs_prove_rs random r, s"
        verify "$d/vk.json" "$TMP/r_pub.json" "$TMP/r.json" || fail "$curve/$c: snarkjs_prove_rs proof (random r, s) does not verify"
        cmp -s "$TMP/r.json" "$TMP/a.json" && fail "$curve/$c: random r, s gave the r=s=0 proof"
        n=$((n + 2))
    done
done

# fast_ptau == snarkjs's own `powersoftau prepare phase2`, byte for byte, on a
# small power (with a random tau, logged)
for curve in $CURVES; do
    tau="$(od -An -tu8 -N8 /dev/urandom | tr -d ' ')"
    echo "test_interop_fixtures: fast_ptau $curve 2^5 tau=$tau"
    node scripts/interop/fast_ptau.mjs "$curve" 5 "$TMP/prep.ptau" --tau "$tau" 2>/dev/null || fail "fast_ptau $curve"
    node scripts/interop/fast_ptau.mjs "$curve" 5 "$TMP/raw.ptau" --tau "$tau" --unprepared 2>/dev/null || fail "fast_ptau --unprepared $curve"
    $SNARKJS powersoftau prepare phase2 "$TMP/raw.ptau" "$TMP/snark.ptau" >/dev/null 2>&1 || fail "snarkjs prepare phase2 $curve"
    cmp -s "$TMP/prep.ptau" "$TMP/snark.ptau" || fail "fast_ptau $curve tau=$tau differs from snarkjs prepare phase2"
    n=$((n + 1))
    # the same ptau through the usual snarkjs flow, with a random `zkey contribute`
    d="$CACHE/$curve/multiplier"
    $SNARKJS groth16 setup "$d/circuit.r1cs" "$TMP/prep.ptau" "$TMP/c0.zkey" >/dev/null 2>&1 &&
        $SNARKJS zkey contribute "$TMP/c0.zkey" "$TMP/c1.zkey" --name=test -e="test $tau" >/dev/null 2>&1 &&
        $SNARKJS zkey export verificationkey "$TMP/c1.zkey" "$TMP/c1.vk.json" >/dev/null 2>&1 &&
        $SNARKJS groth16 prove "$TMP/c1.zkey" "$d/witness.wtns" "$TMP/c1.proof.json" "$TMP/c1.public.json" >/dev/null 2>&1 ||
        fail "$curve: setup/contribute/prove with a fast_ptau file"
    verify "$TMP/c1.vk.json" "$TMP/c1.public.json" "$TMP/c1.proof.json" || fail "$curve: proof from a fast_ptau setup does not verify"
    n=$((n + 1))
done

# a proof checked against the other curve's key must be rejected
if verify "$CACHE/bls12381/multiplier/vk.json" "$CACHE/bn128/multiplier/public.json" "$CACHE/bn128/multiplier/proof.json"; then
    fail "bn128 proof accepted by a bls12381 key"
fi
n=$((n + 1))
echo "test_interop_fixtures: OK ($n checks)"
