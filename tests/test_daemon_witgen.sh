#!/usr/bin/env bash
# g16d with a witness generator (docs/api.md, docs/witgen.md): a key
# registered with circom's .wasm generator takes jobs whose witnesses are
# {"inputs": {...}}; each partition's witness is generated in the job path
# and its proof verifies with snarkjs (public output a*b). A partition whose
# inputs do not satisfy the circuit fails with "witness_generator" and the
# generator's message, its sibling still proves; a hanging generator is
# killed at witgen_timeout_s and fails its partition only. Registration
# errors: a generator that is not one (422 witness_generator), outside the
# allowed roots (403), a key without a generator given inputs (422
# no_witness_generator), the same id with another generator (409). The
# generator survives a restart (keys_file), and the restarted daemon proves
# from inputs again; `g16 client keys add --witness-gen` and `g16 client
# submit --inputs` do the same from the command line.
# Needs node and tests/js/node_modules: FAILS without them (CI runs them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. tests/daemon/lib.sh
command -v node >/dev/null || fail "node not found"
NM=tests/js/node_modules
[ -e $NM/circom2/cli.js ] && [ -e $NM/.bin/snarkjs ] || fail "$NM missing: run npm ci --prefix tests/js"
CACHE="${G16_INTEROP_CACHE:-.cache/interop}"
scripts/interop/build_fixtures.sh --quiet --cache "$CACHE" --curves bn128 --circuits multiplier ||
    fail "build_fixtures.sh"
T=$(cd "$T" && pwd -P)
FX=$(cd "$CACHE/bn128/multiplier" && pwd -P)
cp "$FX/circuit.zkey" "$FX/vk.json" "$T/"
mkdir -p "$T/c"
node $NM/circom2/cli.js examples/multiplier/multiplier.circom --wasm --prime bn128 \
    -o "$(realpath --relative-to=. "$T/c")" >"$T/circom.log" 2>&1 || { cat "$T/circom.log"; fail "circom2"; }
WASM=$T/c/multiplier_js/multiplier.wasm
printf '#!/bin/sh\nsleep 300\n' >"$T/hang.sh"
chmod +x "$T/hang.sh"
mkdir -p "$T/scratch"

start_g16d --keys-file "$T/keys.json" --witgen-timeout-s 2 --witgen-scratch-dir "$T/scratch"
expect POST /v1/keys "{\"id\": \"mul\", \"path\": \"$T/circuit.zkey\", \"witness_generator\": \"$WASM\"}" 201
[ "$(jq_ "$T/resp" "d['witness_generator']")" = "$WASM" ] || fail "key reply: $(cat "$T/resp")"
expect POST /v1/keys "{\"id\": \"mul\", \"path\": \"$T/circuit.zkey\", \"witness_generator\": \"$WASM\"}" 200
expect POST /v1/keys "{\"id\": \"mul\", \"path\": \"$T/circuit.zkey\"}" 409 conflict
expect POST /v1/keys "{\"id\": \"plain\", \"path\": \"$T/circuit.zkey\"}" 201
expect POST /v1/keys "{\"id\": \"bad\", \"path\": \"$T/circuit.zkey\", \"witness_generator\": \"$T/vk.json\"}" 422 \
    witness_generator
expect POST /v1/keys "{\"id\": \"bad\", \"path\": \"$T/circuit.zkey\", \"witness_generator\": \"/bin/true\"}" 403 \
    forbidden_path
expect POST /v1/keys "{\"id\": \"bad\", \"path\": \"$T/circuit.zkey\", \"witness_generator\": 7}" 400 invalid_arg
expect POST /v1/keys "{\"id\": \"hang\", \"path\": \"$T/circuit.zkey\", \"witness_generator\": \"$T/hang.sh\"}" 201
expect POST /v1/jobs '{"key": "plain", "witnesses": [{"inputs": {"a": "3", "b": "11"}}]}' 422 no_witness_generator
expect POST /v1/jobs '{"key": "mul", "witnesses": [{"inputs": [3, 11]}]}' 400 invalid_arg
expect POST /v1/jobs '{"key": "mul", "witnesses": [{"inputs": {"a": "3"}, "path": "/x"}]}' 400 invalid_arg

# Two good partitions and a bad one; a path witness may sit beside inputs.
req POST /v1/jobs "{\"key\": \"mul\", \"witnesses\": [{\"inputs\": {\"a\": \"3\", \"b\": \"11\"}},
    {\"inputs\": {\"a\": \"3\"}}, {\"inputs\": {\"a\": \"5\", \"b\": \"7\"}}, {\"path\": \"$FX/witness.wtns\"}]}" >/dev/null
[ "$(cat "$T/status")" = 403 ] || fail "a witness outside the roots: $(cat "$T/status")" # FX is not under T
cp "$FX/witness.wtns" "$T/w.wtns"
req POST /v1/jobs "{\"key\": \"mul\", \"witnesses\": [{\"inputs\": {\"a\": \"3\", \"b\": \"11\"}},
    {\"inputs\": {\"a\": \"3\"}}, {\"inputs\": {\"a\": \"5\", \"b\": \"7\"}}, {\"path\": \"$T/w.wtns\"}]}" >/dev/null
[ "$(cat "$T/status")" = 202 ] || fail "POST /v1/jobs with inputs: $(cat "$T/status") $(cat "$T/resp")"
id=$(jq_ "$T/resp" "d['id']")
f=$(wait_job "$id" 60)
[ "$(jq_ "$f" "d['state']")" = failed ] || fail "job $id: $(head -c 600 "$f")"
[ "$(jq_ "$f" "[p['state'] for p in d['partitions']]")" = "['done', 'failed', 'done', 'done']" ] ||
    fail "partition states: $(jq_ "$f" "[p['state'] for p in d['partitions']]")"
[ "$(jq_ "$f" "d['partitions'][1]['error']['code']")" = witness_generator ] || fail "error: $(jq_ "$f" "d['partitions'][1]['error']")"
msg=$(jq_ "$f" "d['partitions'][1]['error']['message']")
case "$msg" in *"partition 1"*"multiplier.wasm failed on job $id partition 1 inputs"*"Not all inputs have been set"*) ;;
    *) fail "partition 1's message: $msg" ;; esac
for i in 0 2 3; do
    python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['partitions'][$i]
json.dump(p['proof'], open(sys.argv[2],'w')); json.dump(p['public'], open(sys.argv[3],'w'))" "$f" "$T/p$i.json" "$T/pub$i.json"
    node $NM/.bin/snarkjs groth16 verify "$T/vk.json" "$T/pub$i.json" "$T/p$i.json" 2>&1 | grep -q OK ||
        fail "partition $i: snarkjs does not verify"
done
[ "$(jq_ "$f" "[d['partitions'][i]['public'][0] for i in (0, 2, 3)]")" = "['33', '35', '33']" ] ||
    fail "public outputs: $(jq_ "$f" "[d['partitions'][i]['public'] for i in (0, 2, 3)]")"

# A hanging generator: killed at witgen_timeout_s (2 s), its partition fails.
t0=$SECONDS
expect POST /v1/jobs '{"key": "hang", "witnesses": [{"inputs": {"a": "1", "b": "1"}}]}' 202
id=$(jq_ "$T/resp" "d['id']")
f=$(wait_job "$id" 60)
[ "$(jq_ "$f" "d['partitions'][0]['error']['code']")" = witness_generator ] || fail "hang: $(head -c 600 "$f")"
case "$(jq_ "$f" "d['partitions'][0]['error']['message']")" in *"killed at the time limit of 2 s"*) ;;
    *) fail "hang message: $(jq_ "$f" "d['partitions'][0]['error']['message']")" ;; esac
[ $((SECONDS - t0)) -lt 20 ] || fail "the hanging generator held the job $((SECONDS - t0)) s"
[ -z "$(ls -A "$T/scratch")" ] || fail "scratch directories left: $(ls -A "$T/scratch")"

# The generator is kept in keys_file: after a restart the key proves from inputs.
grep -q "witness_generator" "$T/keys.json" || fail "keys_file lacks the generator: $(cat "$T/keys.json")"
stop_g16d
start_g16d --keys-file "$T/keys.json"
req GET /v1/keys >/dev/null
[ "$(jq_ "$T/resp" "[k['witness_generator'] for k in d['keys'] if k['id'] == 'mul']")" = "['$WASM']" ] ||
    fail "after restart: $(cat "$T/resp")"
expect POST /v1/jobs '{"key": "mul", "witnesses": [{"inputs": {"a": "6", "b": "7"}}]}' 202
id=$(jq_ "$T/resp" "d['id']")
f=$(wait_job "$id" 60)
[ "$(jq_ "$f" "d['state']")" = done ] || fail "after restart: $(head -c 600 "$f")"
[ "$(jq_ "$f" "d['partitions'][0]['public'][0]")" = 42 ] || fail "after restart: public $(jq_ "$f" "d['partitions'][0]['public']")"
verify_job "$f" "$T/vk.json"

# g16 client: a key registered with --witness-gen, a job of input files.
echo '{"a": "4", "b": "9"}' >"$T/in.json"
"$G16_BIN" client --url "$ADDR" keys add mul2 "$T/circuit.zkey" --witness-gen "$WASM" >/dev/null ||
    fail "g16 client keys add --witness-gen"
"$G16_BIN" client --url "$ADDR" submit mul2 --inputs "$T/in.json" "$T/in.json" --wait --timeout 60 --out "$T/out" \
    >"$T/client.out" 2>&1 || { cat "$T/client.out"; fail "g16 client submit --inputs"; }
for i in 0 1; do
    pr=$(ls "$T/out"/proof*"$i".json) && pu=$(ls "$T/out"/public*"$i".json) || fail "client wrote no proof $i"
    node $NM/.bin/snarkjs groth16 verify "$T/vk.json" "$pu" "$pr" 2>&1 | grep -q OK || fail "client proof $i"
    [ "$(tr -d ' \n' <"$pu")" = '["36"]' ] || fail "client public $i: $(cat "$pu")"
done
rc=0; "$G16_BIN" client --url "$ADDR" submit mul2 --inputs "$T/vk.json" "$T/circuit.zkey" >/dev/null 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "g16 client submit --inputs of a non-JSON file succeeded"
stop_g16d
echo "test_daemon_witgen: ok"
