#!/usr/bin/env bash
# `g16 setup --insecure-test-setup --format params` through the CLI:
#  - tests/vectors/params_toy.r1cs is what gen_params_r1cs.mjs writes (when
#    node is present);
#  - with gen_params.mjs's toxic waste (--insecure-toxic, from
#    params_toy.txt) it writes params_toy.params and params_toy.vk byte for
#    byte (key.vk beside key.params), and `g16 info` reads the result;
#  - a seeded run equals the run given the toxic waste --print-toxic reports;
#  - refusals: output = input, a BN254 --curve, --snarkjs-init, a bad
#    --insecure-toxic, no --insecure-test-setup; a refused run leaves the
#    existing outputs as they were.
set -euo pipefail
cd "$(dirname "$0")/.."
G16=${G16_BIN:-build/g16}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test_setup_params_cli.sh: $*" >&2; exit 1; }
V=tests/vectors

if command -v node >/dev/null 2>&1; then
    node $V/gen_params_r1cs.mjs "$tmp"
    cmp $V/params_toy.r1cs "$tmp/params_toy.r1cs" || fail "params_toy.r1cs differs from a fresh generation"
fi

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
echo "test_setup_params_cli.sh: noble key reproduced byte for byte; seed and refusals ok"
