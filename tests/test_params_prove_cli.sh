#!/usr/bin/env bash
# bellperson partitions through the CLI, checked by the @noble/curves
# verifier (tests/vectors/verify_params.mjs, no g16 code):
#   - `g16 synth --r1cs --wtns --assignment` on noble's circom files of the toy
#     makes noble's params_toy.assignment byte for byte;
#   - `g16 info` prints the assignment's counts;
#   - `g16 prove --params` on the toy key writes proof.bin and public.json;
#     noble accepts it against the .vk and the .params, `g16 verify --params`
#     too (exit 0); a proof with one byte changed, a wrong public input and
#     noble's own proof with a wrong input are rejected by both (exit 1);
#   - bad inputs exit 2 with the reason: a truncated or damaged assignment, a
#     popcount that disagrees with the key, a key that is only a .vk.
# Needs node and `npm ci --prefix tests/js`; fails (not skips) without them.
set -euo pipefail
cd "$(dirname "$0")/.."
G16_BIN=${G16_BIN:-build/g16}
command -v node >/dev/null 2>&1 || { echo "test_params_prove_cli.sh: node not found" >&2; exit 1; }
[ -d tests/js/node_modules/@noble/curves ] || { echo "test_params_prove_cli.sh: run 'npm ci --prefix tests/js'" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test_params_prove_cli.sh: $*" >&2; exit 1; }
V=tests/vectors
noble() { node tests/vectors/verify_params.mjs "$@" >/dev/null 2>"$tmp/noble.err"; }
rc_of() { set +e; "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"; local rc=$?; set -e; echo $rc; }

# synth: the toy's circom files -> noble's assignment
"$G16_BIN" synth --r1cs $V/params_toy.r1cs --wtns $V/params_toy.wtns --assignment "$tmp/toy.assignment" >"$tmp/synth.json"
cmp "$tmp/toy.assignment" $V/params_toy.assignment || fail "synth --assignment differs from noble's"
grep -q '"rows":6,"inputs":2,"aux":4,"a_aux_popcount":3,"b_inp_popcount":1,"b_aux_popcount":1' "$tmp/synth.json" \
    || fail "synth summary: $(cat "$tmp/synth.json")"
"$G16_BIN" info "$tmp/toy.assignment" >"$tmp/info.txt"
for want in "rows (abc_size): 6" "inputs: 2" "aux: 4" "a_aux density: 3 of 4" "b_inp density: 1 of 2" \
            "b_aux density: 1 of 4" "domain: 8"; do
    grep -qF "$want" "$tmp/info.txt" || fail "info lacks '$want'"
done

# prove and verify
"$G16_BIN" prove --params $V/params_toy.params "$tmp/toy.assignment" "$tmp/proof.bin" "$tmp/public.json"
[ "$(stat -c %s "$tmp/proof.bin")" = 192 ] || fail "proof.bin is not 192 bytes"
[ "$(tr -d ' \n' <"$tmp/public.json")" = '["35"]' ] || fail "public.json: $(cat "$tmp/public.json")"
noble $V/params_toy.vk "$tmp/public.json" "$tmp/proof.bin" || fail "noble rejects the CLI proof: $(cat "$tmp/noble.err")"
noble $V/params_toy.params "$tmp/public.json" "$tmp/proof.bin" || fail "noble rejects the CLI proof (.params)"
for k in vk params; do
    rc=$(rc_of "$G16_BIN" verify --params $V/params_toy.$k "$tmp/public.json" "$tmp/proof.bin")
    [ "$rc" = 0 ] || fail "g16 verify --params .$k: rc $rc $(cat "$tmp/err.txt")"
done
# noble's r, s: noble's own proof, byte for byte (noble's generator checked it with its pairing)
rs=$(awk '$1 == "rs" {print $2, $3}' $V/params_toy.txt)
"$G16_BIN" prove --params $V/params_toy.params --insecure-test-rs $rs "$tmp/toy.assignment" "$tmp/fixed.bin" "$tmp/fixed.json"
cmp "$tmp/fixed.bin" $V/params_toy.proof || fail "the proof with noble's r, s differs from noble's"
noble $V/params_toy.vk "$tmp/fixed.json" "$tmp/fixed.bin" || fail "noble rejects its own proof"
# fresh r, s each time: a second proof differs and verifies
"$G16_BIN" prove --params $V/params_toy.params "$tmp/toy.assignment" "$tmp/proof2.bin" "$tmp/public2.json"
cmp -s "$tmp/proof.bin" "$tmp/proof2.bin" && fail "two proofs are identical (r, s not fresh)"
noble $V/params_toy.vk "$tmp/public2.json" "$tmp/proof2.bin" || fail "noble rejects the second proof"
# the option parser's forms: --opt=value, options after the operands, --help
"$G16_BIN" prove "$tmp/toy.assignment" --backend=cpu --params=$V/params_toy.params "$tmp/proof3.bin" "$tmp/public3.json" ||
    fail "prove --params=KEY with --backend=cpu after an operand"
"$G16_BIN" verify "$tmp/public3.json" --params $V/params_toy.vk "$tmp/proof3.bin" >/dev/null ||
    fail "verify --params KEY between the operands"
"$G16_BIN" prove --params --help | grep -q -- "--insecure-test-rs" || fail "prove --params --help"
rc=$(rc_of "$G16_BIN" prove --params --backend=gpu $V/params_toy.params "$tmp/toy.assignment" "$tmp/p.bin" "$tmp/p.json")
[ "$rc" = 2 ] || fail "an unknown backend: rc $rc"
rc=$(rc_of "$G16_BIN" prove --params --no-such-option $V/params_toy.params "$tmp/toy.assignment" "$tmp/p.bin" "$tmp/p.json")
[ "$rc" = 2 ] || fail "an unknown option: rc $rc"

# rejections: a wrong public input; C changed (flip a bit of C's x, retry until it still decodes)
echo '["36"]' >"$tmp/wrong.json"
set +e; noble $V/params_toy.vk "$tmp/wrong.json" "$tmp/proof.bin"; rc=$?; set -e
[ $rc = 1 ] || fail "noble accepts a wrong public input (rc $rc)"
rc=$(rc_of "$G16_BIN" verify --params $V/params_toy.vk "$tmp/wrong.json" "$tmp/proof.bin")
[ "$rc" = 1 ] || fail "g16 verify accepts a wrong public input (rc $rc)"
rc=$(rc_of "$G16_BIN" verify --params $V/params_toy.vk "$tmp/wrong.json" $V/params_toy.proof)
[ "$rc" = 1 ] || fail "g16 verify accepts noble's proof with a wrong input (rc $rc)"
# a tampered proof: the first proof's A and B with the second's C (valid
# points, not a proof): invalid (1) for both; a flipped bit in C: a point
# that does not decode (off the curve or, nearly always, outside the
# subgroup): bad input (2) for both
{ head -c 144 "$tmp/proof.bin"; tail -c 48 "$tmp/proof2.bin"; } >"$tmp/mix.bin"
set +e; noble $V/params_toy.vk "$tmp/public.json" "$tmp/mix.bin"; nrc=$?; set -e
grc=$(rc_of "$G16_BIN" verify --params $V/params_toy.vk "$tmp/public.json" "$tmp/mix.bin")
[ $nrc = 1 ] && [ "$grc" = 1 ] || fail "mixed proof: noble rc $nrc, g16 rc $grc"
for off in 191 170 150; do
    python3 -c "import sys; d=bytearray(open(sys.argv[1],'rb').read()); d[$off]^=1; open(sys.argv[2],'wb').write(d)" \
        "$tmp/proof.bin" "$tmp/bad.bin"
    set +e; noble $V/params_toy.vk "$tmp/public.json" "$tmp/bad.bin"; nrc=$?; set -e
    grc=$(rc_of "$G16_BIN" verify --params $V/params_toy.vk "$tmp/public.json" "$tmp/bad.bin")
    [ $nrc != 0 ] && [ "$grc" != 0 ] && [ $nrc = "$grc" ] || fail "byte $off flipped: noble rc $nrc, g16 rc $grc"
done

# bad inputs: exit 2, a reason
head -c 500 "$tmp/toy.assignment" >"$tmp/cut.assignment"
rc=$(rc_of "$G16_BIN" prove --params $V/params_toy.params "$tmp/cut.assignment" "$tmp/p.bin" "$tmp/p.json")
[ "$rc" = 2 ] && grep -q "remain" "$tmp/err.txt" || fail "cut assignment: rc $rc $(cat "$tmp/err.txt")"
[ ! -e "$tmp/p.bin" ] && [ ! -e "$tmp/p.json" ] || fail "outputs written on failure"
rc=$(rc_of "$G16_BIN" info "$tmp/cut.assignment")
[ "$rc" = 2 ] || fail "info on a cut assignment: rc $rc"
cp "$tmp/toy.assignment" "$tmp/pop.assignment"
printf '\x02' | dd of="$tmp/pop.assignment" bs=1 seek=48 conv=notrunc status=none   # a_aux_popcount 3 -> 2
rc=$(rc_of "$G16_BIN" prove --params $V/params_toy.params "$tmp/pop.assignment" "$tmp/p.bin" "$tmp/p.json")
[ "$rc" = 2 ] && grep -q "a_aux_popcount is 2 but a_aux_density has 3 bits set" "$tmp/err.txt" \
    || fail "popcount: rc $rc $(cat "$tmp/err.txt")"
cp "$tmp/toy.assignment" "$tmp/big.assignment"
printf '\x09' | dd of="$tmp/big.assignment" bs=1 seek=16 conv=notrunc status=none   # abc_size 6 -> 9
rc=$(rc_of "$G16_BIN" prove --params $V/params_toy.params "$tmp/big.assignment" "$tmp/p.bin" "$tmp/p.json")
[ "$rc" = 2 ] && grep -q "remain\|trailing" "$tmp/err.txt" || fail "abc_size: rc $rc $(cat "$tmp/err.txt")"
rc=$(rc_of "$G16_BIN" prove --params $V/params_toy.vk "$tmp/toy.assignment" "$tmp/p.bin" "$tmp/p.json")
[ "$rc" = 2 ] || fail "a .vk as the proving key: rc $rc"
rc=$(rc_of "$G16_BIN" verify --params $V/params_toy.vk "$tmp/public.json" "$tmp/cut.assignment")
[ "$rc" = 2 ] || fail "verify on a non-proof: rc $rc"
rc=$(rc_of "$G16_BIN" prove --params $V/params_toy.params "$tmp/toy.assignment" "$tmp/toy.assignment" "$tmp/p.json")
[ "$rc" = 2 ] || fail "output over the input: rc $rc"
cmp -s "$tmp/toy.assignment" $V/params_toy.assignment || fail "the input was overwritten"
echo "test_params_prove_cli.sh: synth, prove, verify (g16 and noble), rejections and bad inputs ok"
