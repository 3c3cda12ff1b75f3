#!/usr/bin/env bash
# g16d with a bellperson .params key (docs/api.md, "Keys" and "Jobs"): the
# key registers by its path (format "params" in its JSON); jobs of
# {"assignment": path} and inline {"data": base64 of an .assignment file}
# entries are proved, each proof ({"format":"bellperson","proof":hex}) and
# its public inputs accepted by the @noble/curves verifier
# (tests/vectors/verify_params.mjs). A partition whose assignment is damaged
# fails alone with the reader's message; bad entries are refused at submit
# (a witness-style entry, a wrong header, a path outside the roots). Jobs
# accepted before a restart (SIGKILL while one runs and one is queued) are
# proved by the restarted daemon. `g16 client submit --wait --out` writes
# proof-<i>.bin and public-<i>.json.
# Needs node and tests/js/node_modules: FAILS without them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. tests/daemon/lib.sh
command -v node >/dev/null || fail "node not found"
[ -d tests/js/node_modules/@noble/curves ] || fail "run 'npm ci --prefix tests/js'"
V=tests/vectors
T=$(cd "$T" && pwd -P)
noble() { node $V/verify_params.mjs "$@" >/dev/null 2>"$T/noble.err"; }

"$G16_BIN" synth --curve bls12-381 --log-n 9 --profile filecoin --out "$T/f.r1cs" --witness "$T/f.wtns" \
    --assignment "$T/f.assignment" >/dev/null 2>"$T/err.txt" || fail "synth: $(cat "$T/err.txt")"
"$G16_BIN" setup --insecure-test-setup --format params "$T/f.r1cs" "$T/f.params" --seed 5 2>"$T/err.txt" >/dev/null \
    || fail "setup: $(cat "$T/err.txt")"
cp $V/params_toy.params $V/params_toy.vk $V/params_toy.assignment "$T/"
# damaged copies: a_aux_popcount off by one (caught when the partition runs);
# a header whose counts are another circuit's (refused at submit)
cp "$T/f.assignment" "$T/pop.assignment"
python3 - "$T/pop.assignment" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
v = struct.unpack_from("<Q", d, 48)[0]; struct.pack_into("<Q", d, 48, v - 1)
open(sys.argv[1], "wb").write(d)
PY
b64() { base64 -w0 "$1"; }

# one runner (workers 1, queue_extra 0): partitions run one at a time, by priority
start_g16d --keys-file "$T/keys.json" --workers 1 --queue-extra 0
expect POST /v1/keys "{\"id\": \"fil\", \"path\": \"$T/f.params\"}" 201
[ "$(jq_ "$T/resp" "d['format']")" = params ] || fail "key reply: $(cat "$T/resp")"
[ "$(jq_ "$T/resp" "d['curve']")" = bls12-381 ] || fail "key curve: $(cat "$T/resp")"
expect POST /v1/keys "{\"id\": \"toy\", \"path\": \"$T/params_toy.params\"}" 201
[ "$(jq_ "$T/resp" "(d['format'], d['n_public'], d['domain'])")" = "('params', 1, 8)" ] || fail "toy key: $(cat "$T/resp")"

expect POST /v1/keys "{\"id\": \"gen\", \"path\": \"$T/f.params\", \"witness_generator\": \"$T/f.r1cs\"}" 400 invalid_arg

# refusals at submit
expect POST /v1/jobs "{\"key\": \"fil\", \"witnesses\": [{\"inputs\": {\"a\": 1}}]}" 400 invalid_arg
expect POST /v1/jobs "{\"key\": \"fil\", \"witnesses\": [{\"assignment\": \"$T/params_toy.assignment\"}]}" 422 size_mismatch
expect POST /v1/jobs "{\"key\": \"fil\", \"witnesses\": [{\"data\": \"$(b64 "$T/f.r1cs" | head -c 200)\"}]}" 422 format
expect POST /v1/jobs "{\"key\": \"fil\", \"witnesses\": [{\"assignment\": \"/etc/passwd\"}]}" 403 forbidden_path

# a job: paths, inline data, a damaged partition
req POST /v1/jobs "{\"key\": \"fil\", \"priority\": \"high\", \"witnesses\": [{\"assignment\": \"$T/f.assignment\"},
    {\"data\": \"$(b64 "$T/f.assignment")\"}, {\"assignment\": \"$T/pop.assignment\"}, {\"path\": \"$T/f.assignment\"}]}" >/dev/null
[ "$(cat "$T/status")" = 202 ] || fail "POST /v1/jobs: $(cat "$T/status") $(cat "$T/resp")"
id=$(jq_ "$T/resp" "d['id']")
f=$(wait_job "$id" 60)
[ "$(jq_ "$f" "[p['state'] for p in d['partitions']]")" = "['done', 'done', 'failed', 'done']" ] ||
    fail "partition states: $(head -c 800 "$f")"
[ "$(jq_ "$f" "d['partitions'][2]['error']['code']")" = format ] || fail "error: $(jq_ "$f" "d['partitions'][2]['error']")"
case "$(jq_ "$f" "d['partitions'][2]['error']['message']")" in *"partition 2"*"a_aux_popcount"*) ;;
    *) fail "partition 2's message: $(jq_ "$f" "d['partitions'][2]['error']['message']")" ;; esac
check_params_job() { # FILE VK [MAX]: noble checks the first MAX done partitions (default all)
    local f=$1 vk=$2 n i
    n=$(jq_ "$f" "len(d['partitions'])")
    [ -n "${3:-}" ] && [ "$3" -lt "$n" ] && n=$3
    for i in $(seq 0 $((n - 1))); do
        [ "$(jq_ "$f" "d['partitions'][$i]['state']")" = done ] || continue
        python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['partitions'][$i]
assert p['proof']['format'] == 'bellperson', p['proof']
open(sys.argv[2],'wb').write(bytes.fromhex(p['proof']['proof'])); json.dump(p['public'], open(sys.argv[3],'w'))" \
            "$f" "$T/p.bin" "$T/p.json" || fail "partition $i: no bellperson proof"
        [ "$(stat -c %s "$T/p.bin")" = 192 ] || fail "partition $i: proof is not 192 bytes"
        noble "$vk" "$T/p.json" "$T/p.bin" || fail "noble rejects partition $i of $f: $(cat "$T/noble.err")"
    done
}
check_params_job "$f" "$T/f.vk"

# restart: a long high-priority job (40 partitions), then a low one behind it; g16d is
# killed while the low one is still queued; the restarted daemon (keys from
# keys_file) proves both
ws=$(python3 -c "import json,sys; print(json.dumps([{'assignment': sys.argv[1]}] * 40))" "$T/f.assignment")
expect POST /v1/jobs "{\"key\": \"fil\", \"priority\": \"high\", \"witnesses\": $ws}" 202
hid=$(jq_ "$T/resp" "d['id']")
req POST /v1/jobs "{\"key\": \"toy\", \"priority\": \"low\", \"witnesses\": [{\"assignment\": \"$T/params_toy.assignment\"},
    {\"data\": \"$(b64 "$T/params_toy.assignment")\"}]}" >/dev/null
[ "$(cat "$T/status")" = 202 ] || fail "POST toy job: $(cat "$T/status") $(cat "$T/resp")"
rid=$(jq_ "$T/resp" "d['id']")
req GET "/v1/jobs/$rid?results=0" >"$T/before.json"
kill -KILL "$G16D_PID"; wait "$G16D_PID" 2>/dev/null || true; G16D_PID=
[ "$(jq_ "$T/before.json" "d['state']")" = queued ] || fail "job $rid was $(jq_ "$T/before.json" "d['state']") at the kill"
grep -q "f.params" "$T/keys.json" || fail "keys_file lacks the .params key: $(cat "$T/keys.json")"
start_g16d --keys-file "$T/keys.json"
req GET /v1/keys >/dev/null
[ "$(jq_ "$T/resp" "sorted(k['id'] + ':' + k['format'] for k in d['keys'])")" = "['fil:params', 'toy:params']" ] ||
    fail "keys after restart: $(cat "$T/resp")"
f=$(wait_job "$rid" 60)
[ "$(jq_ "$f" "d['state']")" = done ] || fail "job $rid after restart: $(head -c 600 "$f")"
[ "$(jq_ "$f" "d['partitions'][0]['public']")" = "['35']" ] || fail "toy public: $(jq_ "$f" "d['partitions'][0]['public']")"
check_params_job "$f" "$T/params_toy.vk"
f=$(wait_job "$hid" 120)
[ "$(jq_ "$f" "d['state']")" = done ] || fail "job $hid after restart: $(head -c 600 "$f")"
check_params_job "$f" "$T/f.vk" 2
f=$(wait_job "$id" 10)
check_params_job "$f" "$T/f.vk" # the results of the first job survived too

# g16 client: submit --wait --out writes proof-<i>.bin and public-<i>.json
"$G16_BIN" client --url "$ADDR" submit fil "$T/f.assignment" "$T/f.assignment" --wait --timeout 60 --out "$T/out" \
    >"$T/client.out" 2>&1 || { cat "$T/client.out"; fail "g16 client submit"; }
"$G16_BIN" client --url "$ADDR" submit toy --inline "$T/params_toy.assignment" --wait --timeout 60 --out "$T/out2" \
    >"$T/client.out" 2>&1 || { cat "$T/client.out"; fail "g16 client submit --inline"; }
for i in 0 1; do
    [ -f "$T/out/proof-$i.bin" ] && [ -f "$T/out/public-$i.json" ] || fail "client wrote no proof $i: $(ls "$T/out")"
    noble "$T/f.vk" "$T/out/public-$i.json" "$T/out/proof-$i.bin" || fail "noble rejects client proof $i"
done
noble "$T/params_toy.vk" "$T/out2/public-0.json" "$T/out2/proof-0.bin" || fail "noble rejects the inline client proof"
"$G16_BIN" verify --params "$T/params_toy.vk" "$T/out2/public-0.json" "$T/out2/proof-0.bin" >/dev/null ||
    fail "g16 verify --params rejects the client proof"
stop_g16d
echo "test_daemon_params: ok"
