#!/usr/bin/env bash
# The main job: install dependencies, build the release binaries, then prove
# and verify the bundled example (examples/poseidon) on both curves, with
# g16 and, as an independent check, snarkjs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The CUDA backend (sm_90 code, many minutes of ptxas) only where a GPU is
# there to run it; elsewhere the CPU build (the tests still compile the CUDA
# code, to PTX: scripts/test.sh).
cuda=OFF
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then cuda=AUTO; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DG16_CUDA=$cuda >/dev/null
cmake --build build -j"$(nproc)"
build/g16 selfcheck
out=build/example
mkdir -p $out
for curve in bn128 bls12381; do
    d=examples/poseidon/$curve
    echo "== $curve: examples/poseidon (4 Poseidon hashes, 2^12 constraints)"
    build/g16 prove --verbose $d/circuit.zkey $d/witness.wtns $out/proof-$curve.json $out/public-$curve.json
    build/g16 verify $d/verification_key.json $out/public-$curve.json $out/proof-$curve.json
    node tests/js/node_modules/snarkjs/cli.js groth16 verify $d/verification_key.json \
        $out/public-$curve.json $out/proof-$curve.json | sed 's/^/snarkjs: /'
done
