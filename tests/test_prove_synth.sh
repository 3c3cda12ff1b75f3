#!/usr/bin/env bash
# End to end on synthetic circuits, both curves, every profile:
# g16 synth -> g16 setup -> g16 prove -> verified by g16 AND by snarkjs;
# snarkjs prove on g16's key -> verified by g16; tampered proofs and public
# inputs are rejected by both; a witness of another circuit is an error.
set -uo pipefail
G16=${G16_BIN:-build/g16}
SNARKJS="node tests/js/node_modules/snarkjs/cli.js"
[ -f tests/js/node_modules/snarkjs/cli.js ] || { echo "snarkjs missing: run scripts/install-deps.sh"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seed=${G16_SEED:-$(date +%s)}
echo "test_prove_synth: seed $seed"
pass=0; fail=0
ok()   { pass=$((pass+1)); }
bad()  { echo "FAIL: $*"; fail=$((fail+1)); }
expect_rc() { # expected_rc description command...
  local want=$1 what=$2; shift 2
  "$@" >"$tmp/out" 2>&1; local rc=$?
  if [ $rc = "$want" ]; then ok; else bad "$what: exit $rc, wanted $want"; cat "$tmp/out"; fi
}
snark_ok() { $SNARKJS groth16 verify "$@" 2>&1 | grep -q "OK!"; }

for curve in bn254 bls12-381; do
  for profile in dense filecoin sparse-b; do
    d=$tmp/$curve-$profile; mkdir -p $d
    $G16 synth --curve $curve --log-n 9 --profile $profile --partitions 2 --seed $seed \
      --out $d/c.r1cs --witness $d/w.wtns >/dev/null || { bad "synth $curve $profile"; continue; }
    expect_rc 0 "setup $curve $profile" $G16 setup --insecure-test-setup --curve $curve $d/c.r1cs $d/c.zkey --vk $d/vk.json --seed $seed
    for i in 0 1; do
      expect_rc 0 "prove $curve $profile $i" $G16 prove $d/c.zkey $d/w.$i.wtns $d/p$i.json $d/pub$i.json
      expect_rc 0 "g16 verify $curve $profile $i" $G16 verify $d/vk.json $d/pub$i.json $d/p$i.json
      if snark_ok $d/vk.json $d/pub$i.json $d/p$i.json; then ok; else bad "snarkjs rejects g16 proof $curve $profile $i"; fi
    done
    # Public inputs of partition 1 with the proof of partition 0: invalid.
    expect_rc 1 "swapped public $curve $profile" $G16 verify $d/vk.json $d/pub1.json $d/p0.json
    if snark_ok $d/vk.json $d/pub1.json $d/p0.json; then bad "snarkjs accepts swapped public"; else ok; fi
    # snarkjs proves with g16's key; g16 verifies.
    if $SNARKJS groth16 prove $d/c.zkey $d/w.0.wtns $d/sp.json $d/spub.json >/dev/null 2>&1; then
      expect_rc 0 "g16 verifies snarkjs proof $curve $profile" $G16 verify $d/vk.json $d/spub.json $d/sp.json
      cmp -s $d/spub.json $d/pub0.json && ok || bad "public.json differs from snarkjs's"
    else bad "snarkjs prove on g16 key $curve $profile"; fi
  done
  # Tampering: pi_a swapped for pi_c (both valid points) must be invalid, not an error.
  d=$tmp/$curve-dense
  node -e '
    const fs=require("fs"); const p=JSON.parse(fs.readFileSync(process.argv[1]));
    [p.pi_a, p.pi_c] = [p.pi_c, p.pi_a]; fs.writeFileSync(process.argv[2], JSON.stringify(p));' $d/p0.json $d/tampered.json
  expect_rc 1 "tampered proof $curve" $G16 verify $d/vk.json $d/pub0.json $d/tampered.json
  if snark_ok $d/vk.json $d/pub0.json $d/tampered.json; then bad "snarkjs accepts tampered proof"; else ok; fi
  # A public input plus one: invalid.
  node -e '
    const fs=require("fs"); const p=JSON.parse(fs.readFileSync(process.argv[1]));
    p[0]=(BigInt(p[0])+1n).toString(); fs.writeFileSync(process.argv[2], JSON.stringify(p));' $d/pub0.json $d/pubplus.json
  expect_rc 1 "changed public input $curve" $G16 verify $d/vk.json $d/pubplus.json $d/p0.json
  # A witness of another circuit (filecoin profile) against the dense key.
  expect_rc 2 "foreign witness $curve" $G16 prove $d/c.zkey $tmp/$curve-filecoin/w.0.wtns $d/x.json $d/xpub.json
done
# A key of one curve with a witness of the other.
expect_rc 2 "wrong-curve witness" $G16 prove $tmp/bn254-dense/c.zkey $tmp/bls12-381-dense/w.0.wtns $tmp/x.json $tmp/xp.json
grep -q "curve" $tmp/out && ok || bad "wrong-curve message does not name the curve"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
