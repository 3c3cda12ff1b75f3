#!/usr/bin/env bash
# g16 zkey export solidityverifier / soliditycalldata against snarkjs 0.7.6
# (tests/js): the same bytes for the same key and proof.
#   - the interop fixtures (multiplier, Poseidon, SHA-256 with its 256
#     public inputs; BN254 and BLS12-381, where snarkjs renders the BN254
#     template with BLS12-381's numbers and g16 does the same and warns):
#     the contract from the .zkey and from verification_key.json, and the
#     calldata of snarkjs's proof, of g16 proofs with r, s from a logged seed,
#     and of a proof without "curve" (rapidsnark's form);
#   - keys from g16's test setup over circuits with 0 and with several public
#     inputs (count from the seed), both curves;
#   - snarkjs's default file names; refusals (output = input, a failed export
#     keeps the old file, plonk, missing protocol, a public input >= r, bad
#     JSON, wrong arguments);
#   - when solc-js can be loaded (tests/js or G16_SOLCJS=<module dir>), the
#     BN254 contracts compile and the BLS12-381 one does not.
set -uo pipefail
G=${G16_BIN:-build/g16}
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
ROOT=$(pwd)
SNARKJS="node $ROOT/tests/js/node_modules/snarkjs/cli.js"
[ -x "$G" ] || { echo "skip: no $G"; exit 77; }
[ -f tests/js/node_modules/snarkjs/cli.js ] || { echo "skip: snarkjs missing (npm ci --prefix tests/js)"; exit 77; }
CACHE=${G16_INTEROP_CACHE:-.cache/interop}
case $CACHE in /*) ;; *) CACHE=$ROOT/$CACHE ;; esac
bash scripts/interop/build_fixtures.sh >/dev/null || { echo "FAIL: fixture build"; exit 1; }
T=$(mktemp -d /tmp/g16_solidity.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T"
SEED=${G16_SEED:-$(date +%s%N)}
echo "test_solidity: seed $SEED"
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
same() { # file1 file2 description
  if cmp -s "$1" "$2"; then ok; else bad "$3"; diff "$1" "$2" | head -5 | sed 's/^/    /'; fi
}
expect() { # rc pattern description command...: exit status and a stderr pattern
  local want=$1 pat=$2 what=$3; shift 3
  "$@" >out.txt 2>err.txt; local rc=$?
  if [ $rc != "$want" ]; then bad "$what: exit $rc, wanted $want"; sed 's/^/    /' err.txt | head -3; return; fi
  if [ -n "$pat" ] && ! grep -Eqi -- "$pat" err.txt; then bad "$what: stderr lacks '$pat'"; sed 's/^/    /' err.txt | head -3; return; fi
  ok
}
sj_sol() { $SNARKJS zkey export solidityverifier "$1" "$2" >/dev/null 2>&1 || bad "snarkjs solidityverifier $1"; }
sj_cd() { $SNARKJS zkey export soliditycalldata "$1" "$2" >"$3" 2>/dev/null || bad "snarkjs soliditycalldata $1"; }
g_cd() { "$G" zkey export soliditycalldata "$1" "$2" >"$3" 2>err.txt || { bad "g16 soliditycalldata $1: $(head -c 200 err.txt)"; }; }

SOLC=""
for m in "${G16_SOLCJS:-}" "$ROOT/tests/js/node_modules/solc"; do
  [ -n "$m" ] && node -e 'require(process.argv[1])' "$m" 2>/dev/null && { SOLC=$m; break; }
done
compiles() { # file.sol: 0 when solc-js compiles it without errors
  node - "$SOLC" "$1" <<'EOF'
const solc = require(process.argv[2]);
const src = require("fs").readFileSync(process.argv[3], "utf8");
const out = JSON.parse(solc.compile(JSON.stringify({language: "Solidity", sources: {"v.sol": {content: src}},
  settings: {outputSelection: {"*": {"*": ["evm.bytecode.object"]}}}})));
const errs = (out.errors || []).filter(e => e.severity === "error");
if (errs.length) { console.error(errs[0].formattedMessage.split("\n")[0]); process.exit(1); }
EOF
}
[ -n "$SOLC" ] && echo "test_solidity: compiling with solc-js from $SOLC" || echo "test_solidity: no solc-js: contracts not compiled"

R=$((SEED % 1000000007 + 11)); S=$((SEED / 7 % 1000000009 + 13))

# ---- the interop fixtures ----------------------------------------------------
for curve in bn128 bls12381; do
  for circ in multiplier poseidon sha256; do
    d=$CACHE/$curve/$circ; t=$curve-$circ; mkdir -p $t
    [ -f $d/circuit.zkey ] || { bad "missing fixture $d"; continue; }
    sj_sol $d/circuit.zkey $t/sj.sol
    "$G" zkey export solidityverifier $d/circuit.zkey $t/g.sol 2>$t/warn.txt || bad "g16 solidityverifier $t: $(cat $t/warn.txt)"
    same $t/g.sol $t/sj.sol "verifier.sol differs from snarkjs's ($t)"
    "$G" zkey export solidityverifier $d/vk.json $t/gvk.sol 2>/dev/null || bad "g16 solidityverifier from vk.json $t"
    same $t/gvk.sol $t/sj.sol "verifier.sol from verification_key.json differs ($t)"
    if [ $curve = bls12381 ]; then
      grep -q "bls12-381 key" $t/warn.txt && ok || bad "no warning for a BLS12-381 key ($t)"
    else
      [ -s $t/warn.txt ] && bad "unexpected stderr for $t: $(cat $t/warn.txt)" || ok
    fi
    # snarkjs's proof; a g16 proof with r, s from the seed; the same without "curve"
    sj_cd $d/public.json $d/proof.json $t/sj.cd
    g_cd $d/public.json $d/proof.json $t/g.cd
    same $t/g.cd $t/sj.cd "calldata differs from snarkjs's ($t)"
    if [ $circ != sha256 ]; then
      "$G" prove --insecure-test-rs $R $S $d/circuit.zkey $d/witness.wtns $t/p.json $t/pub.json >/dev/null 2>&1 || bad "prove $t"
      sj_cd $t/pub.json $t/p.json $t/sj2.cd
      g_cd $t/pub.json $t/p.json $t/g2.cd
      same $t/g2.cd $t/sj2.cd "calldata of a g16 proof differs ($t, r=$R s=$S)"
    fi
    if [ $curve = bn128 ]; then
      node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync(process.argv[1]));delete p.curve;fs.writeFileSync(process.argv[2],JSON.stringify(p))' $d/proof.json $t/nocurve.json
      g_cd $d/public.json $t/nocurve.json $t/g3.cd
      same $t/g3.cd $t/sj.cd "calldata of a proof without \"curve\" differs ($t)"
    fi
  done
done
if [ -n "$SOLC" ]; then
  compiles bn128-multiplier/g.sol && ok || bad "solc rejects the BN254 multiplier verifier"
  compiles bn128-sha256/g.sol && ok || bad "solc rejects the BN254 SHA-256 verifier (256 public inputs)"
  compiles bls12381-multiplier/g.sol 2>/dev/null && bad "solc accepts the BLS12-381 verifier (numbers over uint256?)" || ok
fi

# ---- test-setup keys: 0 and several public inputs ------------------------------
# circuit: private a, b; c = a*b; public output i = c + i (i = 0 .. P-1).
mkcircuit() { # curve P out.r1cs out.wtns a b
  python3 - "$@" <<'EOF'
import struct, sys
curve, P, r1cs, wtns, a, b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
r = {"bn254": 21888242871839275222246405745257275088548364400416034343698204186575808495617,
     "bls12-381": 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001}[curve]
fe = lambda v: (v % r).to_bytes(32, "little")
lc = lambda terms: struct.pack("<I", len(terms)) + b"".join(struct.pack("<I", w) + fe(c) for w, c in terms)
nw = 1 + P + 2 + 1                      # one, outputs, a, b, c
ia, ib, ic = 1 + P, 2 + P, 3 + P
cons = [lc([(ia, 1)]) + lc([(ib, 1)]) + lc([(ic, 1)])]
cons += [lc([(ic, 1), (0, i)]) + lc([(0, 1)]) + lc([(1 + i, 1)]) for i in range(P)]
hdr = struct.pack("<I", 32) + r.to_bytes(32, "little") + struct.pack("<IIIIQI", nw, P, 0, 2, nw, len(cons))
secs = [(1, hdr), (2, b"".join(cons)), (3, b"".join(struct.pack("<Q", i) for i in range(nw)))]
open(r1cs, "wb").write(b"r1cs" + struct.pack("<II", 1, len(secs)) +
                        b"".join(struct.pack("<IQ", i, len(s)) + s for i, s in secs))
c = a * b % r
w = [1] + [c + i for i in range(P)] + [a, b, c]
secs = [(1, struct.pack("<I", 32) + r.to_bytes(32, "little") + struct.pack("<I", nw)), (2, b"".join(fe(v) for v in w))]
open(wtns, "wb").write(b"wtns" + struct.pack("<II", 2, len(secs)) +
                        b"".join(struct.pack("<IQ", i, len(s)) + s for i, s in secs))
EOF
}
NP=$((2 + SEED % 9))
for curve in bn254 bls12-381; do
  for P in 0 $NP; do
    t=setup-$curve-$P; mkdir -p $t
    mkcircuit $curve $P $t/c.r1cs $t/w.wtns $((SEED % 9973 + 2)) $((SEED % 7919 + 3)) || { bad "circuit $t"; continue; }
    "$G" setup --insecure-test-setup --seed $((SEED % 100000 + P)) $t/c.r1cs $t/c.zkey --vk $t/vk.json >/dev/null 2>&1 || { bad "setup $t"; continue; }
    sj_sol $t/c.zkey $t/sj.sol
    "$G" zkey export solidityverifier $t/c.zkey $t/g.sol 2>$t/warn.txt || bad "g16 solidityverifier $t"
    same $t/g.sol $t/sj.sol "verifier.sol differs from snarkjs's ($t)"
    grep -q "uint\[$P\] calldata _pubSignals" $t/g.sol && ok || bad "$t: verifyProof does not take $P public inputs"
    "$G" prove $t/c.zkey $t/w.wtns $t/p.json $t/pub.json >/dev/null 2>&1 || { bad "prove $t"; continue; }
    sj_cd $t/pub.json $t/p.json $t/sj.cd
    g_cd $t/pub.json $t/p.json $t/g.cd
    same $t/g.cd $t/sj.cd "calldata differs from snarkjs's ($t)"
    if [ $P = 0 ]; then
      grep -q "no public inputs" $t/warn.txt && ok || bad "no warning for a key without public inputs ($t)"
    fi
    if [ -n "$SOLC" ] && [ $curve = bn254 ]; then
      # snarkjs's contract for no public inputs declares uint[0]: solc rejects it
      if [ $P = 0 ]; then compiles $t/g.sol 2>/dev/null && bad "solc accepts uint[0] ($t)?" || ok
      else compiles $t/g.sol && ok || bad "solc rejects the verifier with $P public inputs ($t)"; fi
    fi
  done
done

# ---- snarkjs's defaults, refusals, bad input -----------------------------------
d=$CACHE/bn128/multiplier
mkdir -p defaults && cp $d/circuit.zkey defaults/circuit_final.zkey && cp $d/proof.json $d/public.json defaults/
(cd defaults && "$G" zkey export solidityverifier 2>/dev/null && "$G" zkey export soliditycalldata >g.cd 2>/dev/null) || bad "default file names"
same defaults/verifier.sol bn128-multiplier/sj.sol "verifier.sol from the default names differs"
same defaults/g.cd bn128-multiplier/sj.cd "calldata from the default names differs"
cp $d/circuit.zkey k.zkey
expect 2 "same file" "output = input refused" "$G" zkey export solidityverifier k.zkey ./k.zkey
cmp -s k.zkey $d/circuit.zkey && ok || bad "output = input: the key changed"
echo OLD >old.sol
head -c 1000 $d/circuit.zkey >trunc.zkey
expect 2 "trunc" "a truncated key" "$G" zkey export solidityverifier trunc.zkey old.sol
[ "$(cat old.sol)" = OLD ] && ok || bad "a failed export changed the old verifier.sol"
ls | grep -q '\.tmp\.' && bad "temporary files left: $(ls | grep '\.tmp\.')" || ok
expect 2 "no such file|cannot open" "a missing key" "$G" zkey export solidityverifier nothere.zkey old.sol
echo '{"a":' >broken.json
expect 2 "invalid JSON" "verification key: bad JSON" "$G" zkey export solidityverifier broken.json old.sol
expect 2 "invalid JSON" "calldata: bad proof JSON" "$G" zkey export soliditycalldata $d/public.json broken.json
expect 2 "invalid JSON" "calldata: bad public JSON" "$G" zkey export soliditycalldata broken.json $d/proof.json
node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync(process.argv[1]));p.protocol="plonk";fs.writeFileSync("plonk.json",JSON.stringify(p));delete p.protocol;fs.writeFileSync("noproto.json",JSON.stringify(p))' $d/proof.json
expect 2 "groth16" "calldata: a plonk proof" "$G" zkey export soliditycalldata $d/public.json plonk.json
expect 2 "protocol" "calldata: no protocol" "$G" zkey export soliditycalldata $d/public.json noproto.json
echo '["21888242871839275222246405745257275088548364400416034343698204186575808495617"]' >big.json
expect 2 "modulus" "calldata: a public input >= r" "$G" zkey export soliditycalldata big.json $d/proof.json
echo '["0x21"]' >hexpub.json
expect 2 "decimal" "calldata: a non-decimal public input" "$G" zkey export soliditycalldata hexpub.json $d/proof.json
expect 2 "too many" "too many arguments" "$G" zkey export solidityverifier a b c
expect 2 "unknown option" "an unknown option" "$G" zkey export soliditycalldata --frobnicate
expect 2 "usage" "an unknown export" "$G" zkey export solidityfoo
expect 0 "" "--help" "$G" zkey export solidityverifier --help
grep -q "soliditycalldata" out.txt && ok || bad "--help does not list soliditycalldata"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
