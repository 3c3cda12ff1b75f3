#!/usr/bin/env bash
# g16 prove --backend cuda against --backend cpu through the CLI: with fixed
# r, s (--insecure-test-rs) the two proof.json files are identical byte for
# byte and public.json too, for the repository's poseidon keys (snarkjs's)
# and synthetic circuits of both curves, with resident and streamed bases;
# the GPU proofs verify with g16 verify. With a resident key the GPU
# synthesis is the default, and G16_GPU_SYNTH=0 (CPU synthesis) gives the
# same bytes. Bad options are usage errors.
# Without a GPU (or a build without CUDA) `--backend cuda` must fail cleanly
# (exit 2, a message), `--backend auto` must prove on the CPU, and the rest
# is skipped (exit 77).
set -uo pipefail
G16=${G16_BIN:-build/g16}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seed=${G16_SEED:-$(date +%s)}
echo "test_gpu_cli: seed $seed"
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
R=123456789012345678901234567890
S=987654321098765432109876543210

expect_rc() { # expected_rc description command...
  local want=$1 what=$2; shift 2
  "$@" >"$tmp/out" 2>&1; local rc=$?
  if [ $rc = "$want" ]; then ok; else bad "$what: exit $rc, wanted $want"; cat "$tmp/out"; fi
}

ex=examples/poseidon/bn128
expect_rc 2 "bad --backend" $G16 prove --backend tpu $ex/circuit.zkey $ex/witness.wtns $tmp/p.json $tmp/pub.json
expect_rc 2 "bad --device" $G16 prove --device x $ex/circuit.zkey $ex/witness.wtns $tmp/p.json $tmp/pub.json
expect_rc 0 "auto" $G16 prove --backend auto $ex/circuit.zkey $ex/witness.wtns $tmp/p.json $tmp/pub.json

if ! $G16 prove --backend cuda $ex/circuit.zkey $ex/witness.wtns $tmp/p.json $tmp/pub.json >"$tmp/probe" 2>&1; then
  if grep -q "no CUDA backend\|no usable device\|not present\|NO_DEVICE\|no device" "$tmp/probe"; then
    # Must have failed cleanly with a usage-level exit code.
    $G16 prove --backend cuda $ex/circuit.zkey $ex/witness.wtns $tmp/p.json $tmp/pub.json >/dev/null 2>&1
    [ $? = 2 ] && ok || bad "--backend cuda without GPU: exit code not 2"
    echo "test_gpu_cli: $pass passed, $fail failed; skipped: no GPU ($(head -c 200 "$tmp/probe"))"
    [ $fail = 0 ] || exit 1
    exit 77
  fi
  bad "--backend cuda on poseidon: $(cat "$tmp/probe")"
fi

# same_proof NAME ZKEY WTNS [extra options for the GPU run]
same_proof() {
  local name=$1 zk=$2 wt=$3; shift 3
  if ! $G16 prove --backend cpu --insecure-test-rs $R $S "$zk" "$wt" "$tmp/pc.json" "$tmp/pubc.json" >"$tmp/o" 2>&1; then
    bad "$name: cpu prove"; cat "$tmp/o"; return
  fi
  if ! $G16 prove --backend cuda --verbose "$@" --insecure-test-rs $R $S "$zk" "$wt" "$tmp/pg.json" "$tmp/pubg.json" >"$tmp/o" 2>&1; then
    bad "$name: cuda prove"; cat "$tmp/o"; return
  fi
  grep "GPU\|backend" "$tmp/o" | sed "s/^/  $name: /"
  if cmp -s "$tmp/pc.json" "$tmp/pg.json"; then ok; else
    bad "$name: proof.json differs (cpu vs cuda)"; diff "$tmp/pc.json" "$tmp/pg.json" | head -20
  fi
  cmp -s "$tmp/pubc.json" "$tmp/pubg.json" && ok || bad "$name: public.json differs"
  # The synthesis: on the GPU by default with a resident key (not with
  # streamed bases); G16_GPU_SYNTH=0 keeps it on the CPU, same bytes.
  case " $* " in
    *" --stream-bases "*) grep -q "on the GPU" "$tmp/o" && bad "$name: GPU synthesis with streamed bases" || ok ;;
    *) grep -q "on the GPU" "$tmp/o" && ok || bad "$name: the GPU synthesis was not the default" ;;
  esac
  if G16_GPU_SYNTH=0 $G16 prove --backend cuda --verbose "$@" --insecure-test-rs $R $S "$zk" "$wt" "$tmp/pg0.json" \
       "$tmp/pubg0.json" >"$tmp/o0" 2>&1; then
    cmp -s "$tmp/pc.json" "$tmp/pg0.json" && ok || bad "$name: proof.json differs (cpu vs cuda with G16_GPU_SYNTH=0)"
    grep -q "on the GPU" "$tmp/o0" && bad "$name: G16_GPU_SYNTH=0 still synthesized on the GPU" || ok
  else
    bad "$name: cuda prove with G16_GPU_SYNTH=0"; cat "$tmp/o0"
  fi
  # And with random r, s the GPU proof verifies (g16 prove verifies before writing; check again).
  $G16 prove --backend cuda "$@" "$zk" "$wt" "$tmp/pr.json" "$tmp/pubr.json" >"$tmp/o" 2>&1 && ok ||
    { bad "$name: cuda prove (random r, s)"; cat "$tmp/o"; }
  if [ -n "${VK:-}" ]; then
    expect_rc 0 "$name: g16 verify" $G16 verify "$VK" "$tmp/pubr.json" "$tmp/pr.json"
  fi
}

for c in bn128 bls12381; do
  ex=examples/poseidon/$c
  VK=""
  [ -f $ex/verification_key.json ] && VK=$ex/verification_key.json
  same_proof "poseidon $c" $ex/circuit.zkey $ex/witness.wtns
  same_proof "poseidon $c streamed" $ex/circuit.zkey $ex/witness.wtns --stream-bases
done

for curve in bn254 bls12-381; do
  for profile in dense filecoin; do
    d=$tmp/$curve-$profile; mkdir -p $d
    $G16 synth --curve $curve --log-n 12 --profile $profile --seed $seed --out $d/c.r1cs --witness $d/w.wtns >/dev/null ||
      { bad "synth $curve $profile"; continue; }
    $G16 setup --insecure-test-setup --curve $curve $d/c.r1cs $d/c.zkey --vk $d/vk.json --seed $seed >/dev/null 2>&1 ||
      { bad "setup $curve $profile"; continue; }
    VK=$d/vk.json
    same_proof "synthetic $curve $profile 2^12" $d/c.zkey $d/w.wtns
  done
done
# --device: a device that is not there is an error, not a crash.
expect_rc 2 "absent --device" $G16 prove --backend cuda --device 999 $d/c.zkey $d/w.wtns $tmp/p.json $tmp/pub.json

echo "test_gpu_cli: $pass passed, $fail failed"
[ $fail = 0 ]
