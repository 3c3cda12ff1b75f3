#!/usr/bin/env bash
# The checked-key cache (key.check_cache_dir, util/keycache.h) through
# `g16 prove`: a key checked once (more than 2 s after its last change) is
# recorded, and its next load skips the point checks (--verbose says so)
# and still makes a proof that verifies; the same key with one byte of a
# point changed in place is checked again and refused (exit 2, naming the
# section); "off" records nothing and skips nothing; --trusted-key records
# nothing.
set -uo pipefail
G16=${G16_BIN:-build/g16}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seed=${G16_SEED:-$(date +%s)}
echo "test_key_cache: seed $seed"
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
d=$tmp
$G16 synth --curve bn254 --log-n 8 --profile dense --seed $seed --out $d/c.r1cs --witness $d/w.wtns >/dev/null ||
  { echo "FAIL: synth"; exit 1; }
$G16 setup --insecure-test-setup --curve bn254 $d/c.r1cs $d/c.zkey --vk $d/vk.json --seed $seed >/dev/null 2>&1 ||
  { echo "FAIL: setup"; exit 1; }
cp $d/c.zkey $d/off.zkey
sleep 2.2 # the cache records files whose last change is at least 2 s old
records() { find "$1" -type f 2>/dev/null | wc -l; }
prove() { # cache-dir key out-prefix [flags]: prints the verbose log, returns g16's exit status
  local dir=$1 key=$2 o=$3; shift 3
  G16_KEY_CHECK_CACHE_DIR=$dir $G16 prove --verbose "$@" $key $d/w.wtns $o.json $o.pub.json >$o.log 2>&1
}

kc=$d/kc
if prove $kc $d/c.zkey $d/p1 && ! grep -q 'skipped' $d/p1.log; then ok; else bad "first prove: $(cat $d/p1.log)"; fi
[ "$(records $kc)" = 1 ] && ok || bad "records after the first prove: $(records $kc)"
[ "$(stat -c %a $kc)" = 700 ] && ok || bad "cache dir mode $(stat -c %a $kc)"
if prove $kc $d/c.zkey $d/p2 && grep -q 'point checks passed before: skipped' $d/p2.log; then ok; else
  bad "second prove did not skip the checks: $(cat $d/p2.log)"; fi
$G16 verify $d/vk.json $d/p2.pub.json $d/p2.json >/dev/null 2>&1 && ok || bad "the proof from a cached key does not verify"
# one byte of the last H point's y (section 9), in place (size kept; ctime moves)
python3 - $d/c.zkey <<'PY'
import struct, sys
p = sys.argv[1]
with open(p, "r+b") as f:
    b = f.read()
    o = 12
    while o < len(b):
        sid, size = struct.unpack_from("<IQ", b, o)
        if sid == 9:
            at = o + 12 + size - 20
            f.seek(at)
            f.write(bytes([b[at] ^ 0x5a]))
            break
        o += 12 + size
    else:
        sys.exit("no section 9")
PY
prove $kc $d/c.zkey $d/p3; rc=$?
if [ $rc = 2 ] && grep -q 'section 9 (H)' $d/p3.log && ! grep -q 'skipped' $d/p3.log; then ok; else
  bad "a key changed in place after its record: exit $rc: $(cat $d/p3.log)"; fi
# off: nothing recorded, nothing skipped
prove off $d/off.zkey $d/p4 && prove off $d/off.zkey $d/p5 && ! grep -q skipped $d/p4.log $d/p5.log && ok ||
  bad "off: $(cat $d/p4.log $d/p5.log)"
kc2=$d/kc2
prove $kc2 $d/off.zkey $d/p6 --trusted-key && [ "$(records $kc2)" = 0 ] && ok || bad "--trusted-key recorded the key"
echo "test_key_cache: $pass passed, $fail failed"
[ $fail = 0 ]
