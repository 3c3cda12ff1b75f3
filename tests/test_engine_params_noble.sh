#!/usr/bin/env bash
# Assignment jobs in the engine, checked by the @noble/curves verifier
# (tests/vectors/verify_params.mjs, no g16 code): test_engine_params runs
# its jobs (files, copied bytes, borrowed structs; priorities, cancellation,
# bad partitions) on the noble toy key and on a 2^10 Filecoin-profile key
# made by `g16 setup --format params` with its partition from `g16 synth
# --assignment`, writing every proof it returned; noble accepts each one and
# rejects one with a changed public input.
# Needs node and `npm ci --prefix tests/js`; fails (not skips) without them.
set -euo pipefail
cd "$(dirname "$0")/.."
G16_BIN=${G16_BIN:-build/g16}
T=${G16_BUILD_DIR:-build}/test_engine_params
[ -x "$T" ] || { echo "test_engine_params_noble.sh: $T not built" >&2; exit 1; }
command -v node >/dev/null 2>&1 || { echo "test_engine_params_noble.sh: node not found" >&2; exit 1; }
[ -d tests/js/node_modules/@noble/curves ] || { echo "test_engine_params_noble.sh: run 'npm ci --prefix tests/js'" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test_engine_params_noble.sh: $*" >&2; exit 1; }
V=tests/vectors

noble_all() { # vk dir
    local n=0
    for p in "$2"/proof-*.bin; do
        local i=${p##*/proof-}; i=${i%.bin}
        node $V/verify_params.mjs "$1" "$2/public-$i.json" "$p" >/dev/null 2>"$tmp/noble.err" \
            || fail "noble rejects $p: $(cat "$tmp/noble.err")"
        n=$((n + 1))
    done
    [ $n -ge 10 ] || fail "only $n proofs in $2"
    # one changed public input is rejected
    python3 - "$2/public-0.json" "$tmp/wrong.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1])); v[0] = str(int(v[0]) + 1); json.dump(v, open(sys.argv[2], "w"))
PY
    set +e; node $V/verify_params.mjs "$1" "$tmp/wrong.json" "$2/proof-0.bin" >/dev/null 2>&1; local rc=$?; set -e
    [ $rc = 1 ] || fail "noble accepts a wrong public input (rc $rc)"
    echo "test_engine_params_noble.sh: noble accepts the $n engine proofs in $2"
}

mkdir "$tmp/toy"
"$T" $V/params_toy.params $V/params_toy.assignment "$tmp/toy" >"$tmp/t.log" 2>&1 || { cat "$tmp/t.log"; fail "toy run"; }
noble_all $V/params_toy.vk "$tmp/toy"

"$G16_BIN" synth --curve bls12-381 --log-n 10 --profile filecoin --out "$tmp/f.r1cs" --witness "$tmp/f.wtns" \
    --assignment "$tmp/f.assignment" >/dev/null 2>"$tmp/err.txt" || fail "synth: $(cat "$tmp/err.txt")"
"$G16_BIN" setup --insecure-test-setup --format params "$tmp/f.r1cs" "$tmp/f.params" --seed 7 2>"$tmp/err.txt" \
    || fail "setup: $(cat "$tmp/err.txt")"
mkdir "$tmp/fil"
"$T" "$tmp/f.params" "$tmp/f.assignment" "$tmp/fil" >"$tmp/t.log" 2>&1 || { cat "$tmp/t.log"; fail "2^10 run"; }
noble_all "$tmp/f.vk" "$tmp/fil"
echo "test_engine_params_noble.sh: ok"
