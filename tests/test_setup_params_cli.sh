#!/usr/bin/env bash
# `g16 setup --insecure-test-setup --format params` through the CLI, on
# tests/vectors/params_toy.r1cs (gen_params.mjs's toy circuit as a circom R1CS):
#  - with gen_params.mjs's toxic waste (--insecure-toxic, from
#    params_toy.txt) it writes params_toy.params and params_toy.vk byte for
#    byte (key.vk beside key.params), and `g16 info` reads the result;
#  - a seeded run equals the run given the toxic waste --print-toxic reports;
#  - refusals: output = input, a BN254 --curve, --snarkjs-init, a bad
#    --insecure-toxic, no --insecure-test-setup; a refused run leaves the
#    existing outputs as they were;
#  - with a CUDA device, --backend cuda writes the same bytes;
#  - when the library proves bellperson partitions (g16_prove_assignments in
#    g16.h): a seeded key for a synthetic 2^10 filecoin-profile circuit and
#    `g16 synth --assignment` partitions prove with `g16 prove --params`, and
#    `g16 verify --params` and the noble checker verify_params.mjs accept the proofs.
set -euo pipefail
cd "$(dirname "$0")/.."
G16=${G16_BIN:-build/g16}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test_setup_params_cli.sh: $*" >&2; exit 1; }
V=tests/vectors

# toxic alpha beta gamma delta tau -> tau,alpha,beta,gamma,delta
tox=$(awk '/^toxic /{print $6","$2","$3","$4","$5}' $V/params_toy.txt)
[ -n "$tox" ] || fail "no toxic line in params_toy.txt"
"$G16" setup --insecure-test-setup --format params $V/params_toy.r1cs "$tmp/key.params" \
    --insecure-toxic "$tox" --backend cpu 2>"$tmp/err.txt" || fail "setup failed: $(cat "$tmp/err.txt")"
cmp "$tmp/key.params" $V/params_toy.params || fail "key.params differs from the noble-written params_toy.params"
cmp "$tmp/key.vk" $V/params_toy.vk || fail "key.vk differs from the noble-written params_toy.vk"
"$G16" info "$tmp/key.params" >"$tmp/info.txt" || fail "g16 info key.params failed"
for want in "ic: 2 points" "h: 7 points" "l: 4 points" "a: 5 points" "b_g1: 2 points" "b_g2: 2 points" "domain: 8"; do
    grep -qF "$want" "$tmp/info.txt" || fail "info lacks '$want'"
done
"$G16" info "$tmp/key.vk" >/dev/null || fail "g16 info key.vk failed"

# --vk names the .vk; any other key name gets .vk appended
"$G16" setup --insecure-test-setup --format params $V/params_toy.r1cs "$tmp/other.key" --vk "$tmp/named.vk" \
    --insecure-toxic "$tox" 2>/dev/null
cmp "$tmp/named.vk" $V/params_toy.vk || fail "--vk output differs"
"$G16" setup --insecure-test-setup --format params $V/params_toy.r1cs "$tmp/other.key" --insecure-toxic "$tox" 2>/dev/null
cmp "$tmp/other.key.vk" $V/params_toy.vk || fail "<key>.vk output differs"

# seeded: the same bytes as the toxic waste it prints (decimal, BLS12-381 r)
"$G16" setup --insecure-test-setup --format params $V/params_toy.r1cs "$tmp/s.params" --seed 42 --print-toxic \
    >"$tmp/tw.txt" 2>/dev/null
dec() { python3 -c "import sys; print(int(sys.argv[1], 16))" "$(grep "^$1=" "$tmp/tw.txt" | cut -d= -f2)"; }
tox2="$(dec tau),$(dec alpha),$(dec beta),$(dec gamma),$(dec delta)"
"$G16" setup --insecure-test-setup --format params $V/params_toy.r1cs "$tmp/t.params" --insecure-toxic "$tox2" 2>/dev/null
cmp "$tmp/s.params" "$tmp/t.params" || fail "seeded key differs from the key of its printed toxic waste"
cmp "$tmp/s.vk" "$tmp/t.vk" || fail "seeded vk differs"
cmp -s "$tmp/s.params" "$tmp/key.params" && fail "seed 42 gave the toy key"

refuse() { # refuse <what> <args...>: exit 2, key.params and key.vk untouched
    local what=$1; shift
    set +e
    "$G16" setup "$@" >/dev/null 2>"$tmp/err.txt"; local rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$what: exit $rc, not 2 ($(cat "$tmp/err.txt"))"
    cmp -s "$tmp/key.params" $V/params_toy.params && cmp -s "$tmp/key.vk" $V/params_toy.vk \
        || fail "$what: changed an existing output"
}
cp $V/params_toy.r1cs "$tmp/c.r1cs"
refuse "output = input" --insecure-test-setup --format params "$tmp/c.r1cs" "$tmp/c.r1cs" --seed 1
grep -q "same file" "$tmp/err.txt" || fail "output = input: $(cat "$tmp/err.txt")"
refuse "vk = input" --insecure-test-setup --format params "$tmp/c.r1cs" "$tmp/key.params" --vk "$tmp/c.r1cs" --seed 1
refuse "bn254" --insecure-test-setup --format params --curve bn254 $V/params_toy.r1cs "$tmp/key.params" --seed 1
refuse "snarkjs-init" --insecure-test-setup --format params --snarkjs-init $V/params_toy.r1cs "$tmp/key.params"
refuse "toxic >= r" --insecure-test-setup --format params $V/params_toy.r1cs "$tmp/key.params" \
    --insecure-toxic "1,2,3,4,52435875175126190479447740508185965837690552500527637822603658699938581184513"
refuse "toxic zero" --insecure-test-setup --format params $V/params_toy.r1cs "$tmp/key.params" --insecure-toxic "1,2,0,4,5"
refuse "tau a root of unity" --insecure-test-setup --format params $V/params_toy.r1cs "$tmp/key.params" --insecure-toxic "1,2,3,4,5"
grep -q "root of unity" "$tmp/err.txt" || fail "tau = 1: $(cat "$tmp/err.txt")"
refuse "toxic short" --insecure-test-setup --format params $V/params_toy.r1cs "$tmp/key.params" --insecure-toxic "1,2,3,4"
refuse "format" --insecure-test-setup --format pk $V/params_toy.r1cs "$tmp/key.params"
refuse "not insecure" --format params $V/params_toy.r1cs "$tmp/key.params" --seed 1

# On a machine with a CUDA device: the GPU's fixed-base multiplications give the same bytes.
if "$G16" setup --insecure-test-setup --format params $V/params_toy.r1cs "$tmp/gpu.params" --insecure-toxic "$tox" \
    --backend cuda >/dev/null 2>&1; then
    cmp "$tmp/gpu.params" $V/params_toy.params || fail "--backend cuda key differs from the CPU's"
    cmp "$tmp/gpu.vk" $V/params_toy.vk || fail "--backend cuda vk differs from the CPU's"
    echo "test_setup_params_cli.sh: --backend cuda gives the same key"
fi

if grep -q 'g16_prove_assignments(' include/g16.h; then
    "$G16" synth --curve bls12-381 --log-n 10 --profile filecoin --out "$tmp/f.r1cs" --witness "$tmp/f.wtns" \
        --assignment "$tmp/f.assignment" >/dev/null 2>"$tmp/err.txt" || fail "synth: $(cat "$tmp/err.txt")"
    "$G16" setup --insecure-test-setup --format params "$tmp/f.r1cs" "$tmp/f.params" --seed 11 2>"$tmp/err.txt" \
        || fail "setup of the synthetic circuit: $(cat "$tmp/err.txt")"
    "$G16" prove --params "$tmp/f.params" "$tmp/f.assignment" "$tmp/f.proof" "$tmp/f.json" 2>"$tmp/err.txt" \
        || fail "prove --params on the setup's key: $(cat "$tmp/err.txt")"
    "$G16" verify --params "$tmp/f.vk" "$tmp/f.json" "$tmp/f.proof" >/dev/null 2>&1 || fail "g16 verify --params rejects"
    if command -v node >/dev/null 2>&1 && [ -f $V/verify_params.mjs ] && [ -d tests/js/node_modules/@noble/curves ]; then
        node $V/verify_params.mjs "$tmp/f.vk" "$tmp/f.json" "$tmp/f.proof" >/dev/null 2>"$tmp/err.txt" \
            || fail "noble rejects the proof on the setup's key: $(cat "$tmp/err.txt")"
    fi
    echo "test_setup_params_cli.sh: a seeded key proves and verifies (g16 prove/verify --params)"
fi
echo "test_setup_params_cli.sh: noble key reproduced byte for byte; seed and refusals ok"
