#!/usr/bin/env bash
# A key truncated while g16 has it mapped (the way `cp`, snarkjs and
# `g16 setup` rewrite a key in place) must not kill g16 with SIGBUS (exit
# 135): `g16 prove --batch` over many witnesses, with the key truncated by
# another process once two partitions are done, exits 2 and names the key;
# the proofs it wrote verify. The same for one `g16 prove` truncated after
# its synthesis (exit 2 naming the key, or 0 with a proof that verifies when
# the truncation came after every read of the key), and a key rewritten in
# place with another key of the same size between two batches is refused
# (exit 2, "rewritten in place"), not reported as a bad witness.
set -uo pipefail
G16=${G16_BIN:-build/g16}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seed=${G16_SEED:-$(date +%s)}
echo "test_key_truncate: seed $seed"
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
d=$tmp
n=24
$G16 synth --curve bn254 --log-n 11 --profile dense --partitions $n --seed $seed \
  --out $d/c.r1cs --witness $d/w.wtns >/dev/null || { echo "FAIL: synth"; exit 1; }
$G16 setup --insecure-test-setup --curve bn254 $d/c.r1cs $d/c.zkey --vk $d/vk.json --seed $seed >/dev/null 2>&1 ||
  { echo "FAIL: setup"; exit 1; }
$G16 setup --insecure-test-setup --curve bn254 $d/c.r1cs $d/other.zkey --seed $((seed + 1)) >/dev/null 2>&1 ||
  { echo "FAIL: setup 2"; exit 1; }
wits=()
for i in $(seq 0 $((n - 1))); do wits+=("$d/w.$i.wtns"); done

# Waits until FILE has at least N lines matching PATTERN (at most ~60 s).
wait_lines() {
  local file=$1 pat=$2 want=$3
  for _ in $(seq 1 3000); do
    [ -f "$file" ] && [ "$(grep -c "$pat" "$file")" -ge "$want" ] && return 0
    sleep 0.02
  done
  return 1
}

# 1. g16 prove --batch: truncated after two partitions are finalized.
cp $d/c.zkey $d/k.zkey
mkdir -p $d/out
$G16 prove --batch --events $d/tl.jsonl $d/k.zkey "${wits[@]}" --out-dir $d/out 2>$d/err &
pid=$!
if wait_lines $d/tl.jsonl '"ev":"finalize","ph":"E"' 2; then
  truncate -s $(( $(stat -c %s $d/c.zkey) / 2 )) $d/k.zkey
else
  bad "batch: no partition finished"
fi
wait $pid; rc=$?
done_parts=$(grep -c '"ev":"finalize","ph":"E"' $d/tl.jsonl)
if [ $rc = 2 ] && grep -q "k.zkey changed while in use" $d/err && grep -q "reload the key" $d/err; then ok
else bad "batch on a truncated key: rc $rc (135 = killed by SIGBUS), $done_parts partitions finalized"; tail -3 $d/err; fi
written=$(ls $d/out/proof-*.json 2>/dev/null | wc -l)
if [ "$written" -ge 2 ] && [ "$written" -lt $n ]; then ok; else bad "batch: $written of $n proofs written"; fi
for f in $(ls $d/out/proof-*.json 2>/dev/null | head -3); do
  i=${f##*proof-}; i=${i%.json}
  if $G16 verify $d/vk.json $d/out/public-$i.json $f >/dev/null; then ok; else bad "batch: proof $i does not verify"; fi
done

# 2. One g16 prove, truncated once its synthesis is done (the heavy stage
# reads the key's bases next).
cp $d/c.zkey $d/k1.zkey
$G16 prove --verbose $d/k1.zkey ${wits[0]} $d/p1.json $d/pub1.json 2>$d/err1 &
pid=$!
wait_lines $d/err1 'synthesis done' 1 && truncate -s 4096 $d/k1.zkey
wait $pid; rc=$?
if [ $rc = 2 ] && grep -q "k1.zkey changed while in use" $d/err1; then ok
elif [ $rc = 0 ] && $G16 verify $d/vk.json $d/pub1.json $d/p1.json >/dev/null; then ok; echo "note: single prove finished before the truncation"
else bad "single prove on a truncated key: rc $rc"; tail -3 $d/err1; fi

# 3. Rewritten in place (no truncation, same size) while g16 prove --batch
# runs: refused as changed, not as a proof that does not verify.
cp $d/c.zkey $d/k2.zkey
mkdir -p $d/out2
$G16 prove --batch --events $d/tl2.jsonl $d/k2.zkey "${wits[@]}" --out-dir $d/out2 2>$d/err2 &
pid=$!
if wait_lines $d/tl2.jsonl '"ev":"finalize","ph":"E"' 2; then
  dd if=$d/other.zkey of=$d/k2.zkey conv=notrunc status=none
  touch -d '@1000000' $d/k2.zkey # an mtime surely not the one at load
else
  bad "rewrite: no partition finished"
fi
wait $pid; rc=$?
if [ $rc = 2 ] && grep -q "k2.zkey changed while in use (rewritten in place" $d/err2 && ! grep -q "does not verify" $d/err2; then ok
else bad "batch on a key rewritten in place: rc $rc"; tail -3 $d/err2; fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
