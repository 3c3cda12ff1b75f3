#!/usr/bin/env bash
# g16 synth writes circuits and witnesses that snarkjs accepts (`snarkjs wtns
# check` is the independent satisfiability oracle), for every profile, both
# curves and several partitions; a corrupted witness must be rejected.
set -euo pipefail
G16=${G16_BIN:-build/g16}
SNARKJS="node tests/js/node_modules/snarkjs/cli.js"
[ -f tests/js/node_modules/snarkjs/cli.js ] || { echo "snarkjs missing: run scripts/install-deps.sh"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seed=${G16_SEED:-$(date +%s)}
echo "test_synth: seed $seed"
fail=0; checks=0
for curve in bn254 bls12-381; do
  for profile in dense filecoin sparse-b; do
    out=$($G16 synth --curve $curve --log-n 9 --profile $profile --partitions 2 --seed $seed \
          --out $tmp/c.r1cs --witness $tmp/w.wtns)
    for i in 0 1; do
      checks=$((checks+1))
      if $SNARKJS wtns check $tmp/c.r1cs $tmp/w.$i.wtns 2>&1 | grep -q "FINISHED SUCCESSFULLY"; then :; else
        echo "FAIL: $curve $profile partition $i not satisfied"; fail=$((fail+1)); fi
    done
    # Profile shape: filecoin is mostly 0/1 values.
    if [ $profile = filecoin ]; then
      checks=$((checks+1))
      z=$(echo "$out" | sed 's/.*"zero_one_fraction":\([0-9.]*\).*/\1/')
      awk -v z="$z" 'BEGIN{exit !(z > 0.8)}' || { echo "FAIL: filecoin zero_one_fraction $z"; fail=$((fail+1)); }
    fi
    # Corrupt one witness value (wire 6, well past the header): must fail.
    checks=$((checks+1))
    cp $tmp/w.0.wtns $tmp/bad.wtns
    off=$(( $(stat -c %s $tmp/bad.wtns) - 32 * 3 ))
    printf '\x05' | dd of=$tmp/bad.wtns bs=1 seek=$off conv=notrunc status=none
    if $SNARKJS wtns check $tmp/c.r1cs $tmp/bad.wtns 2>&1 | grep -q "FINISHED SUCCESSFULLY"; then
      echo "FAIL: $curve $profile corrupted witness accepted"; fail=$((fail+1)); fi
  done
done
# Bad arguments are errors (exit 2), not crashes.
checks=$((checks+1))
set +e; $G16 synth --curve bn254 --log-n 2 --out $tmp/x.r1cs --witness $tmp/x.wtns 2>/dev/null; rc=$?; set -e
[ $rc = 2 ] || { echo "FAIL: log-n 2 gave exit $rc"; fail=$((fail+1)); }
echo "$((checks-fail)) passed, $fail failed"
[ $fail = 0 ]
