#!/usr/bin/env bash
# g16 against snarkjs on real circom circuits (multiplier, Poseidon chain,
# SHA-256), both curves, both directions:
#   - a g16 proof passes `snarkjs groth16 verify` and `g16 verify`;
#   - snarkjs's proof passes `g16 verify`;
#   - with the same r and s, g16's proof.json and public.json equal snarkjs's
#     byte for byte (snarkjs's own prover with r, s fixed: --via-snarkjs);
#   - a tampered proof or public input is rejected by both;
#   - bad inputs (truncated zkey, corrupted section length, a point off the
#     curve, the other curve's key, another circuit's witness) give exit 2
#     with a specific message, and never a crash (this runs under ASan).
# Fixtures come from scripts/interop/build_fixtures.sh (cached in .cache).
set -uo pipefail
G16=${G16_BIN:-build/g16}
SNARKJS="node tests/js/node_modules/snarkjs/cli.js"
[ -f tests/js/node_modules/snarkjs/cli.js ] || { echo "snarkjs missing: run scripts/install-deps.sh"; exit 1; }
CACHE=${G16_INTEROP_CACHE:-.cache/interop}
bash scripts/interop/build_fixtures.sh >/dev/null || { echo "fixture build failed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
expect() { # rc pattern description command...
  local want=$1 pat=$2 what=$3; shift 3
  "$@" >"$tmp/out" 2>&1; local rc=$?
  if [ $rc != "$want" ]; then bad "$what: exit $rc, wanted $want"; sed 's/^/    /' "$tmp/out"; return; fi
  if [ -n "$pat" ] && ! grep -qi -- "$pat" "$tmp/out"; then bad "$what: message lacks '$pat'"; sed 's/^/    /' "$tmp/out"; return; fi
  ok
}
snark_ok() { $SNARKJS groth16 verify "$@" 2>&1 | grep -q "OK!"; }
R=${G16_SEED:-$(date +%s%N)}
S=$((R / 3 + 7))
echo "test_interop: r=$R s=$S"

for curve in bn128 bls12381; do
  for circ in multiplier poseidon sha256; do
    d=$CACHE/$curve/$circ
    [ -f $d/circuit.zkey ] || { bad "missing fixture $d"; continue; }
    t=$tmp/$curve-$circ; mkdir -p $t
    expect 0 "" "prove $curve $circ" $G16 prove $d/circuit.zkey $d/witness.wtns $t/proof.json $t/public.json
    snark_ok $d/vk.json $t/public.json $t/proof.json && ok || bad "snarkjs rejects g16's proof ($curve $circ)"
    expect 0 "OK" "g16 verify own proof $curve $circ" $G16 verify $d/vk.json $t/public.json $t/proof.json
    expect 0 "OK" "g16 verify snarkjs proof $curve $circ" $G16 verify $d/vk.json $d/public.json $d/proof.json
    cmp -s $t/public.json $d/public.json && ok || bad "public.json differs from snarkjs's ($curve $circ)"
    # Byte for byte with snarkjs for the same r, s.
    expect 0 "" "deterministic prove $curve $circ" $G16 prove --insecure-test-rs $R $S $d/circuit.zkey $d/witness.wtns $t/dp.json $t/dpub.json
    node scripts/interop/snarkjs_prove_rs.mjs $d/circuit.zkey $d/witness.wtns $t/sp.json $t/spub.json --r $R --s $S --via-snarkjs 2>/dev/null
    cmp -s $t/dp.json $t/sp.json && ok || bad "proof.json differs from snarkjs's for the same r, s ($curve $circ)"
    cmp -s $t/dpub.json $t/spub.json && ok || bad "public.json differs ($curve $circ)"
    # g16 export-vk equals snarkjs's.
    expect 0 "" "export-vk $curve $circ" $G16 zkey export-vk $d/circuit.zkey $t/vk.json
    cmp -s $t/vk.json $d/vk.json && ok || bad "verification_key.json differs from snarkjs's ($curve $circ)"
    # Tampering: pi_a <-> pi_c, and public input + 1.
    node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync(process.argv[1]));[p.pi_a,p.pi_c]=[p.pi_c,p.pi_a];fs.writeFileSync(process.argv[2],JSON.stringify(p))' $t/proof.json $t/tp.json
    expect 1 "INVALID" "tampered proof $curve $circ" $G16 verify $d/vk.json $t/public.json $t/tp.json
    snark_ok $d/vk.json $t/public.json $t/tp.json && bad "snarkjs accepts a tampered proof" || ok
    node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync(process.argv[1]));p[p.length-1]=(BigInt(p[p.length-1])+1n).toString();fs.writeFileSync(process.argv[2],JSON.stringify(p))' $t/public.json $t/tpub.json
    expect 1 "INVALID" "changed public input $curve $circ" $G16 verify $d/vk.json $t/tpub.json $t/proof.json
    snark_ok $d/vk.json $t/tpub.json $t/proof.json && bad "snarkjs accepts a changed public input" || ok
  done
done

# ---- bad inputs: exit 2, a specific message, no crash -------------------------
for curve in bn128 bls12381; do
  other=$([ $curve = bn128 ] && echo bls12381 || echo bn128)
  d=$CACHE/$curve/poseidon; t=$tmp/neg-$curve; mkdir -p $t
  size=$(stat -c %s $d/circuit.zkey)
  head -c $((size / 2)) $d/circuit.zkey > $t/trunc.zkey
  expect 2 "truncated" "truncated zkey $curve" $G16 prove $t/trunc.zkey $d/witness.wtns $t/p.json $t/q.json
  expect 2 "curve" "other curve's zkey $curve" $G16 prove $CACHE/$other/poseidon/circuit.zkey $d/witness.wtns $t/p.json $t/q.json
  expect 2 "" "other circuit's witness $curve" $G16 prove $d/circuit.zkey $CACHE/$curve/multiplier/witness.wtns $t/p.json $t/q.json
  # Corrupt the first section's 64-bit size (bytes 16..23) to a huge value.
  cp $d/circuit.zkey $t/badlen.zkey
  printf '\xff\xff\xff\x7f' | dd of=$t/badlen.zkey bs=1 seek=16 conv=notrunc status=none
  expect 2 "" "corrupted section length $curve" $G16 prove $t/badlen.zkey $d/witness.wtns $t/p.json $t/q.json
  # A point off the curve: flip a byte in the last H point's y coordinate.
  cp $d/circuit.zkey $t/offcurve.zkey
  node -e '
    const fs=require("fs"); const b=fs.readFileSync(process.argv[1]); let o=12; const n=b.readUInt32LE(8);
    let h=null; for(let i=0;i<n;i++){const id=b.readUInt32LE(o); const sz=Number(b.readBigUInt64LE(o+4)); if(id===9) h=[o+12,sz]; o+=12+sz;}
    b[h[0]+h[1]-5] ^= 0x01; fs.writeFileSync(process.argv[1], b);' $t/offcurve.zkey
  expect 2 "curve" "point off the curve $curve" $G16 prove $t/offcurve.zkey $d/witness.wtns $t/p.json $t/q.json
  expect 2 "" "missing file $curve" $G16 prove $t/nope.zkey $d/witness.wtns $t/p.json $t/q.json
  echo '{"pi_a": [' > $t/broken.json
  expect 2 "" "malformed proof.json $curve" $G16 verify $d/vk.json $d/public.json $t/broken.json
  expect 2 "curve" "proof of the other curve $curve" $G16 verify $d/vk.json $d/public.json $CACHE/$other/poseidon/proof.json
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
