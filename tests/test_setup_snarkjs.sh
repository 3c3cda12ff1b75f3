#!/usr/bin/env bash
# The test-only setup against snarkjs 0.7.6, both curves, synthetic circuits
# of 2^10 (G16_SETUP_SJ_LOG to change):
#  - g16 setup --snarkjs-init with the toxic waste it prints, and a prepared
#    ptau with the same tau, alpha, beta (scripts/interop/fast_ptau.mjs):
#    `snarkjs zkey verify circuit.r1cs pot.ptau circuit.zkey` accepts the key,
#    and `snarkjs zkey new` from that ptau writes the same bytes;
#  - a g16 proof against that key verifies in snarkjs;
#  - snarkjs zkey verify rejects a plain g16 key (gamma, delta random), a key
#    with one byte of B1 changed, and one with a changed circuit hash;
#  - structure: a plain g16 key and snarkjs's key for the same circuit have the
#    same sections in the same order, the same sizes, nPublic and IC count.
set -uo pipefail
G16=${G16_BIN:-build/g16}
SNARKJS="node tests/js/node_modules/snarkjs/cli.js"
[ -f tests/js/node_modules/snarkjs/cli.js ] || { echo "snarkjs missing: run npm ci --prefix tests/js"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seed=${G16_SEED:-$(date +%s)}
log=${G16_SETUP_SJ_LOG:-10}
echo "test_setup_snarkjs: seed $seed, 2^$log"
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
zkey_ok() { $SNARKJS zkey verify "$@" >"$tmp/zv.out" 2>&1 && grep -q "ZKey Ok!" "$tmp/zv.out"; }

# Section table of a zkey: "id:size" in file order, then nPublic and domainSize.
sections() {
  python3 - "$1" <<'EOF'
import struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:4] == b"zkey"
n = struct.unpack_from("<I", b, 8)[0]
pos, out, hdr = 12, [], None
for _ in range(n):
    sid, size = struct.unpack_from("<IQ", b, pos)
    out.append("%d:%d" % (sid, size))
    if sid == 2:
        hdr = pos + 12
    pos += 12 + size
assert pos == len(b), "sections do not cover the file"
n8q = struct.unpack_from("<I", b, hdr)[0]
o = hdr + 4 + n8q
n8r = struct.unpack_from("<I", b, o)[0]
o += 4 + n8r
nvars, npub, dom = struct.unpack_from("<III", b, o)
print(" ".join(out), "nVars=%d nPublic=%d domain=%d" % (nvars, npub, dom))
EOF
}

for curve in bn254 bls12-381; do
  case $curve in bn254) sj=bn128;; *) sj=bls12381;; esac
  d=$tmp/$curve; mkdir -p $d
  $G16 synth --curve $curve --log-n $log --profile filecoin --seed $seed --out $d/c.r1cs --witness $d/w.wtns >/dev/null \
    || { bad "synth $curve"; continue; }
  if ! $G16 setup --insecure-test-setup $d/c.r1cs $d/init.zkey --vk $d/vk.json --seed $seed --snarkjs-init \
       --print-toxic >$d/toxic.txt 2>$d/setup.err; then
    bad "setup --snarkjs-init $curve"; cat $d/setup.err; continue
  fi
  . $d/toxic.txt
  # power log+1 > the circuit's power: H comes from a full Lagrange level.
  node scripts/interop/fast_ptau.mjs $sj $((log + 1)) $d/pot.ptau --tau $tau --alpha $alpha --beta $beta >/dev/null 2>&1 \
    || { bad "fast_ptau $curve"; continue; }
  if zkey_ok $d/c.r1cs $d/pot.ptau $d/init.zkey; then ok; else bad "snarkjs zkey verify rejects the init key $curve"; tail -5 $tmp/zv.out; fi
  # snarkjs's own key from the same ptau: the same bytes.
  if $SNARKJS zkey new $d/c.r1cs $d/pot.ptau $d/snarkjs.zkey >/dev/null 2>&1; then
    if cmp $d/init.zkey $d/snarkjs.zkey; then ok; else bad "init key differs from snarkjs zkey new $curve"; fi
  else bad "snarkjs zkey new $curve"; fi
  # A g16 proof against the init key verifies in snarkjs.
  if $G16 prove $d/init.zkey $d/w.wtns $d/p.json $d/pub.json >/dev/null 2>&1 &&
     $SNARKJS groth16 verify $d/vk.json $d/pub.json $d/p.json 2>&1 | grep -q "OK!"; then ok
  else bad "g16 proof on the init key not accepted by snarkjs $curve"; fi

  # Rejections: a plain key (random gamma, delta), a changed B1 byte, a changed circuit hash.
  $G16 setup --insecure-test-setup $d/c.r1cs $d/plain.zkey --seed $seed 2>/dev/null || bad "plain setup $curve"
  if zkey_ok $d/c.r1cs $d/pot.ptau $d/plain.zkey; then bad "snarkjs accepts a plain key $curve"; else ok; fi
  python3 - $d/init.zkey $d/bad_b1.zkey $d/bad_hash.zkey <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack_from("<I", b, 8)[0]
pos, off = 12, {}
for _ in range(n):
    sid, size = struct.unpack_from("<IQ", b, pos)
    off[sid] = (pos + 12, size)
    pos += 12 + size
x = bytearray(b); o, s = off[6]; x[o + s // 2] ^= 1; open(sys.argv[2], "wb").write(x)
y = bytearray(b); o, s = off[10]; y[o + 5] ^= 0x80; open(sys.argv[3], "wb").write(y)
EOF
  if zkey_ok $d/c.r1cs $d/pot.ptau $d/bad_b1.zkey; then bad "snarkjs accepts a changed B1 $curve"; else ok; fi
  if zkey_ok $d/c.r1cs $d/pot.ptau $d/bad_hash.zkey; then bad "snarkjs accepts a changed circuit hash $curve"; else ok; fi

  # Structure: plain g16 key vs snarkjs's key.
  a=$(sections $d/plain.zkey); b=$(sections $d/snarkjs.zkey)
  if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else bad "structure differs $curve: g16 [$a] snarkjs [$b]"; fi
  echo "  $curve: $a"
done
echo "test_setup_snarkjs: $pass passed, $fail failed"
[ $fail = 0 ]
