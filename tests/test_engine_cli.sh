#!/usr/bin/env bash
# g16 prove --batch (through the engine): every proof written verifies; a
# corrupt witness fails only its own partition (exit 2, others written);
# g16 bench engine prints its JSON figures.
set -uo pipefail
G16=${G16_BIN:-build/g16}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seed=${G16_SEED:-$(date +%s)}
echo "test_engine_cli: seed $seed"
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
for curve in bn254 bls12-381; do
  d=$tmp/$curve; mkdir -p $d/out $d/out2
  $G16 synth --curve $curve --log-n 8 --profile dense --partitions 3 --seed $seed \
    --out $d/c.r1cs --witness $d/w.wtns >/dev/null || { bad "synth $curve"; continue; }
  $G16 setup --insecure-test-setup --curve $curve $d/c.r1cs $d/c.zkey --vk $d/vk.json --seed $seed >/dev/null 2>&1 || { bad "setup $curve"; continue; }
  if $G16 prove --batch --workers 2 --timeline $d/tl.json $d/c.zkey $d/w.0.wtns $d/w.1.wtns $d/w.2.wtns --out-dir $d/out 2>$d/err; then ok; else bad "batch $curve"; cat $d/err; fi
  for i in 0 1 2; do
    if $G16 verify $d/vk.json $d/out/public-$i.json $d/out/proof-$i.json >/dev/null; then ok; else bad "verify $curve $i"; fi
  done
  # the Chrome trace: one complete "device" event per partition
  if [ "$(grep -o '"name":"device","cat":"g16","ph":"X"' $d/tl.json | wc -l)" = 3 ]; then ok; else bad "timeline $curve"; fi
  # public-i.json holds partition i's public signals: they differ between witnesses
  if ! cmp -s $d/out/public-0.json $d/out/public-1.json || ! cmp -s $d/out/proof-0.json $d/out/proof-1.json; then ok; else bad "identical outputs"; fi
  head -c 100 $d/w.1.wtns > $d/bad.wtns
  $G16 prove --batch $d/c.zkey $d/w.0.wtns $d/bad.wtns $d/w.2.wtns --out-dir $d/out2 2>$d/err2; rc=$?
  if [ $rc = 2 ] && grep -q "bad.wtns" $d/err2 && [ -f $d/out2/proof-0.json ] && [ -f $d/out2/proof-2.json ] && [ ! -f $d/out2/proof-1.json ]; then ok; else bad "corrupt witness $curve: rc $rc"; cat $d/err2; fi
  if $G16 verify $d/vk.json $d/out2/public-2.json $d/out2/proof-2.json >/dev/null; then ok; else bad "verify after fault $curve"; fi
  out=$($G16 bench engine --zkey $d/c.zkey --wtns $d/w.0.wtns --jobs 3 --partitions 2 --workers 2 --json 2>&1)
  if echo "$out" | grep -q '"proofs_per_hour"' && echo "$out" | grep -q '"p99_job_ms"' && echo "$out" | grep -q '"peak_rss_mb"'; then ok; else bad "bench engine $curve: $out"; fi
done
# Backend choice: an unknown backend is a usage error; --backend cpu proves;
# bench engine makes its own synthetic key and reports the GPU-era figures.
d=$tmp/bn254
$G16 prove --batch --backend bogus $d/c.zkey $d/w.0.wtns --out-dir $d/out3 2>/dev/null; rc=$?
if [ $rc = 2 ]; then ok; else bad "--backend bogus: rc $rc"; fi
mkdir -p $d/out3
if $G16 prove --batch --backend cpu --workers-per-device 3 $d/c.zkey $d/w.0.wtns $d/w.1.wtns --out-dir $d/out3 2>$d/err3 &&
   $G16 verify $d/vk.json $d/out3/public-1.json $d/out3/proof-1.json >/dev/null; then ok; else bad "--backend cpu"; cat $d/err3; fi
out=$($G16 bench engine --log-n 8 --jobs 2 --partitions 2 --backend cpu --synth-threads 2 --json 2>/dev/null)
if echo "$out" | grep -q '"backend":"cpu"' && echo "$out" | grep -q '"gpu_busy_fraction"' && echo "$out" | grep -q '"mean_upload_ms"'; then ok; else bad "bench engine --log-n: $out"; fi
# bench engine --log-n: circuit, key and witnesses in memory (no files in
# /tmp), per-phase peak RSS, circuit and setup times.
before=$(ls -d /tmp/g16-bench-engine-* 2>/dev/null | wc -l)
out=$($G16 bench engine --curve bls12-381 --log-n 10 --jobs 2 --partitions 5 --backend cpu --json 2>/dev/null)
after=$(ls -d /tmp/g16-bench-engine-* 2>/dev/null | wc -l)
if echo "$out" | grep -q '"in_memory":true' && echo "$out" | grep -q '"verify":true' &&
   echo "$out" | grep -q '"circuit_ms":' && echo "$out" | grep -q '"setup_ms":' &&
   echo "$out" | grep -q '"rss_setup_kb":' && echo "$out" | grep -q '"rss_prove_kb":' &&
   echo "$out" | grep -q '"partitions":5' && [ "$before" = "$after" ]; then ok; else bad "bench engine --log-n 10 in memory: $out ($before/$after temp entries)"; fi
# --witnesses 1: one distinct witness for every partition (a quarter of the
# default's witness bytes); the proofs still verify.
w4=$(echo "$out" | sed -E 's/.*"wtns_bytes":([0-9]+).*/\1/')
out1=$($G16 bench engine --curve bls12-381 --log-n 10 --jobs 1 --partitions 3 --backend cpu --witnesses 1 --json 2>/dev/null)
w1=$(echo "$out1" | sed -E 's/.*"wtns_bytes":([0-9]+).*/\1/')
if echo "$out1" | grep -q '"verify":true' && [ -n "$w1" ] && [ "$w1" -gt 0 ] && [ $((4 * w1)) = "$w4" ]; then ok;
else bad "bench engine --witnesses 1: wtns_bytes $w1 vs $w4 for 4: $out1"; fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
