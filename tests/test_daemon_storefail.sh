#!/usr/bin/env bash
# g16d while its job store cannot be written, without a restart:
#  - /healthz answers 503 with the reason while writes fail, 200 again
#    once they succeed (the heartbeat's probe write);
#  - a full store answers POST /v1/jobs with 507 insufficient_storage;
#  - results that could not be stored are kept and written once the store
#    takes writes again: the job completes, no restart needed, and the log
#    has exactly one partition_done per stored proof (none for a proof
#    that was not stored);
#  - a failing partition's message names its own index (not "partition 0");
#  - the started event counts the keys restored from keys_file.
# The store lives on a small tmpfs that the test fills and empties (needs
# mount as root); without it, another process holds SQLite's write lock
# instead (slower: each write waits for the busy timeout).
set -euo pipefail
. "$(dirname "$0")/daemon/lib.sh"
LOCKER=
MNT=$T/mnt
mkdir -p "$MNT"
MODE=lock # G16_TEST_STOREFAIL_MODE=lock forces this one
if [ "${G16_TEST_STOREFAIL_MODE:-}" != lock ] && [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=24m tmpfs "$MNT" 2>/dev/null; then MODE=tmpfs; fi
finish() {
    [ -n "$LOCKER" ] && kill "$LOCKER" 2>/dev/null || true
    if [ -n "$G16D_PID" ] && kill -0 "$G16D_PID" 2>/dev/null; then
        kill -KILL "$G16D_PID" 2>/dev/null || true
        wait "$G16D_PID" 2>/dev/null || true
    fi
    G16D_PID=
    [ "$MODE" = tmpfs ] && umount "$MNT" 2>/dev/null || true
    cleanup
}
trap finish EXIT
echo "store failure by: $MODE"

make_key "$T/k" 12 4
make_key "$T/k8" 8 3
DB=$MNT/jobs.db
FLAGS=(--store "sqlite:$DB" --key "k:$T/k/c.zkey" --workers 1 --queue-extra 0 --heartbeat-s 0.5 --lease-s 30
    --log-level debug)
start_g16d "${FLAGS[@]}"
expect GET /healthz - 200

break_store() {
    if [ "$MODE" = tmpfs ]; then
        dd if=/dev/zero of="$MNT/fill" bs=64k >/dev/null 2>&1 || true
    else
        rm -f "$T/unlock"
        python3 -c "
import sqlite3,sys,os,time
c=sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30); c.execute('BEGIN EXCLUSIVE')
open(sys.argv[2]+'.held','w').close()
while not os.path.exists(sys.argv[2]): time.sleep(0.05)
c.execute('COMMIT')" "$DB" "$T/unlock" &
        LOCKER=$!
        for _ in $(seq 1 600); do [ -e "$T/unlock.held" ] && break; sleep 0.05; done
    fi
}
mend_store() {
    if [ "$MODE" = tmpfs ]; then
        rm -f "$MNT/fill"
    else
        touch "$T/unlock"
        wait "$LOCKER" || true
        LOCKER=
    fi
}
LIMIT=60
[ "$MODE" = lock ] && LIMIT=300

# a job whose partitions finish while the store is broken
wl() { python3 -c "import json,sys; print(json.dumps([{'path':'%s/k/w.%d.wtns'%(sys.argv[1],i%4)} for i in range(4)]))" "$T"; }
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":$(wl)}" 202
JA=$(jq_ "$T/resp" "d['id']")
for _ in $(seq 1 3000); do
    grep -q '"event":"partition_claimed"' "$T/g16d.log" && break
    sleep 0.01
done
break_store
end=$((SECONDS + LIMIT))
until grep -q '"event":"partition_unrecorded"' "$T/g16d.log"; do
    [ $SECONDS -lt $end ] || fail "no result failed to be stored within ${LIMIT}s"
    sleep 0.2
done
# health: 503 with the reason (the probe writes 1 MiB while unhealthy)
curl -s -m 60 -o "$T/resp" -w '%{http_code}' "$ADDR/healthz" >"$T/status" || echo 000 >"$T/status"
[ "$(cat "$T/status")" = 503 ] || fail "/healthz while the store cannot be written: $(cat "$T/status") $(cat "$T/resp")"
[ -n "$(jq_ "$T/resp" "d['error']")" ] || fail "/healthz gives no reason: $(cat "$T/resp")"
echo "healthz: $(cat "$T/resp")"
if [ "$MODE" = tmpfs ]; then
    expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":$(wl)}" 507 insufficient_storage
fi
mend_store
# without a restart: the kept results are stored and the job completes
F=$(wait_job "$JA" "$LIMIT")
[ "$(jq_ "$F" "d['state']")" = done ] || fail "job $JA after the store came back: $(head -c 600 "$F")"
verify_job "$F" "$T/k/vk.json"
end=$((SECONDS + 30))
while :; do
    req GET /healthz >/dev/null
    [ "$(cat "$T/status")" = 200 ] && break
    [ $SECONDS -lt $end ] || fail "/healthz stays $(cat "$T/status") after the store came back: $(cat "$T/resp")"
    sleep 0.2
done
n_done=$(grep '"event":"partition_done"' "$T/g16d.log" | grep -c "\"job\":$JA," || true)
[ "$n_done" = 4 ] || fail "$n_done partition_done events for the 4 partitions of job $JA"

# a failing partition names its own index, in the job view and the log
python3 -c "
import sys
b=bytearray(open(sys.argv[1],'rb').read()); b[-32:]=b'\xff'*32; open(sys.argv[2],'wb').write(b)" "$T/k/w.1.wtns" "$T/bad.wtns"
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":[{\"path\":\"$T/k/w.0.wtns\"},{\"path\":\"$T/k/w.1.wtns\"},{\"path\":\"$T/bad.wtns\"}]}" 202
JB=$(jq_ "$T/resp" "d['id']")
F=$(wait_job "$JB" 120)
[ "$(jq_ "$F" "d['state']")" = failed ] || fail "job $JB with a bad witness: $(head -c 600 "$F")"
msg=$(jq_ "$F" "d['partitions'][2]['error']['message']")
case $msg in "partition 2: "*) ;; *) fail "partition 2's error message: '$msg'" ;; esac
grep '"event":"partition_failed"' "$T/g16d.log" | grep "\"job\":$JB," | grep -q '"message":"partition 2: ' ||
    fail "partition_failed event: $(grep '"event":"partition_failed"' "$T/g16d.log" | tail -1)"

# the started event counts the restored keys (k from the flags, k8 from keys_file)
expect POST /v1/keys "{\"id\":\"k8\",\"path\":\"$T/k8/c.zkey\"}" 201
stop_g16d
start_g16d "${FLAGS[@]}"
grep '"event":"started"' "$T/g16d.log" | tail -1 | grep -q '"keys":2' ||
    fail "started event: $(grep '"event":"started"' "$T/g16d.log" | tail -1)"
stop_g16d
echo "test_daemon_storefail: OK ($MODE)"
