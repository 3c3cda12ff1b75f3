#!/usr/bin/env bash
# Key files that change under a running g16d (registered over the API, so
# mapped by the engine): g16d notices a new inode, size or mtime (at job
# submission, before each partition, and on its heartbeat), logs it, and
# either reloads the file (same shape: the next proofs verify against the
# NEW key's vk) or refuses it (another circuit, a truncated file: 409
# key_unusable with the reason, and the key's jobs fail with it), and keeps
# serving throughout. The files are changed while no partition runs.
set -euo pipefail
. "$(dirname "$0")/daemon/lib.sh"

make_key "$T/k" 8 2
make_key "$T/o" 9 2 # another circuit
"$G16_BIN" setup --insecure-test-setup --curve bn254 "$T/k/c.r1cs" "$T/k/c2.zkey" --vk "$T/k/vk2.json" >/dev/null 2>&1 ||
    fail "second setup"
cmp -s "$T/k/c.zkey" "$T/k/c2.zkey" && fail "two setups gave the same key"
cp "$T/k/c.zkey" "$T/kk.zkey"
start_g16d --heartbeat-s 0.5 --lease-s 5 --workers 1 --queue-extra 0
expect POST /v1/keys "{\"id\":\"kk\",\"path\":\"$T/kk.zkey\"}" 201
JOB="{\"key\":\"kk\",\"witnesses\":[{\"path\":\"$T/k/w.0.wtns\"},{\"path\":\"$T/k/w.1.wtns\"}]}"
run_job() { # VK: a job of key kk completes and verifies against VK
    expect POST /v1/jobs "$JOB" 202
    local id f
    id=$(jq_ "$T/resp" "d['id']")
    f=$(wait_job "$id" 120)
    [ "$(jq_ "$f" "d['state']")" = done ] || fail "job $id: $(head -c 600 "$f")"
    verify_job "$f" "$1"
}
alive() { kill -0 "$G16D_PID" 2>/dev/null || fail "g16d died ($1)"; expect GET /healthz - 200; }
refused() { # what: a job of kk is refused with key_unusable, the key shows the error
    expect POST /v1/jobs "$JOB" 409 key_unusable
    jq_ "$T/resp" "d['error']['message']" | grep -q "kk" || fail "$1: message $(cat "$T/resp")"
    echo "$1: $(jq_ "$T/resp" "d['error']['message']")"
    expect GET /v1/keys - 200
    [ "$(jq_ "$T/resp" "[k['error'] is not None for k in d['keys'] if k['id']=='kk'][0]")" = True ] ||
        fail "$1: GET /v1/keys shows no error: $(cat "$T/resp")"
    alive "$1"
}
run_job "$T/k/vk.json"

# cp of another circuit's key over it: refused, g16d serves on
cp "$T/o/c.zkey" "$T/kk.zkey"
refused "another circuit"
grep -q '"event":"key_file_changed"' "$T/g16d.log" || fail "no key_file_changed event"
grep -q '"event":"key_file_refused"' "$T/g16d.log" || fail "no key_file_refused event"

# back to a key of the same circuit, but another setup: reloaded, and the
# proofs are the new key's
cp "$T/k/c2.zkey" "$T/kk.zkey"
run_job "$T/k/vk2.json"
grep -q '"event":"key_reloaded"' "$T/g16d.log" || fail "no key_reloaded event"

# truncate -s 0: refused (seen by the heartbeat without any request too)
truncate -s 0 "$T/kk.zkey"
end=$((SECONDS + 20))
until [ "$(grep -c '"event":"key_file_refused"' "$T/g16d.log")" -ge 2 ]; do
    [ $SECONDS -lt $end ] || fail "the heartbeat did not notice the truncated key"
    sleep 0.1
done
refused "truncated"

# the same key's bytes again (cp, same inode): reloaded
cp "$T/k/c2.zkey" "$T/kk.zkey"
run_job "$T/k/vk2.json"

# a job accepted while the key is fine, whose partitions run after its file
# went bad, fails with the reason (the check before each partition): the
# one runner is busy with another key's job meanwhile
expect POST /v1/keys "{\"id\":\"o\",\"path\":\"$T/o/c.zkey\"}" 201
OW=$(python3 -c "import json,sys; print(json.dumps([{'path':'%s/o/w.%d.wtns'%(sys.argv[1],i%2)} for i in range(12)]))" "$T")
expect POST /v1/jobs "{\"key\":\"o\",\"witnesses\":$OW}" 202
JO=$(jq_ "$T/resp" "d['id']")
expect POST /v1/jobs "$JOB" 202
JQ=$(jq_ "$T/resp" "d['id']")
truncate -s 0 "$T/kk.zkey"
F=$(wait_job "$JQ" 120)
[ "$(jq_ "$F" "d['state']")" = failed ] || fail "job $JQ of a key truncated before it ran: $(head -c 600 "$F")"
msg=$(jq_ "$F" "d['partitions'][0]['error']['message']")
echo "queued job: $msg"
echo "$msg" | grep -q "changed under g16d" || fail "job $JQ's reason: $msg"
F=$(wait_job "$JO" 120)
[ "$(jq_ "$F" "d['state']")" = done ] || fail "job $JO: $(head -c 600 "$F")"
alive "end"
stop_g16d
echo "test_daemon_keychange: OK"
