#!/usr/bin/env bash
# g16d with a full disk for its job store: the daemon runs under `ulimit -f`
# (it ignores SIGXFSZ, so writes past the limit fail with EFBIG) and gets
# jobs with large inline witnesses until the store cannot take more. Every
# reply must be 202 or a clear 507/503 (never a crash or a 500); the daemon
# keeps answering; after a restart without the limit the database passes
# SQLite's integrity check and every accepted job completes.
set -euo pipefail
. "$(dirname "$0")/daemon/lib.sh"

make_key "$T/k" 11 2
REAL=$G16D_BIN
printf '#!/usr/bin/env bash\nulimit -f 1536\nexec "%s" "$@"\n' "$REAL" >"$T/g16d-limited"
chmod +x "$T/g16d-limited"
G16D_BIN=$T/g16d-limited
start_g16d --key "k:$T/k/c.zkey" --heartbeat-s 0.5 --lease-s 5
base64 -w0 "$T/k/w.0.wtns" >"$T/w0.b64"
python3 -c "
import json,sys
b=open(sys.argv[1]).read().strip(); print(json.dumps({'key':'k','witnesses':[{'data':b}]*4}))" "$T/w0.b64" >"$T/job.json"
ACCEPTED=()
FULL=0
for i in $(seq 1 40); do
    curl -s -o "$T/resp" -w '%{http_code}' -X POST --data-binary @"$T/job.json" "$ADDR/v1/jobs" >"$T/status" || echo 000 >"$T/status"
    s=$(cat "$T/status")
    case $s in
    202) ACCEPTED+=("$(jq_ "$T/resp" "d['id']")") ;;
    507)
        c=$(jq_ "$T/resp" "d['error']['code']")
        [ "$c" = insufficient_storage ] || fail "error code $c"
        echo "store full after $i jobs: $s $(jq_ "$T/resp" "d['error']['message']")"
        FULL=1
        break
        ;;
    *) fail "POST $i: status $s: $(head -c 300 "$T/resp")" ;;
    esac
done
[ "$FULL" = 1 ] || fail "the store never filled up"
[ "${#ACCEPTED[@]}" -ge 1 ] || fail "no job accepted before the disk filled"
# still answering
kill -0 "$G16D_PID" || fail "g16d died"
expect GET /v1/jobs/"${ACCEPTED[0]}" - 200
# /healthz tells: 503 with the reason while store writes fail (a second
# full POST keeps it so, whatever the probe found meanwhile)
curl -s -o /dev/null -X POST --data-binary @"$T/job.json" "$ADDR/v1/jobs" || true
req GET /healthz >/dev/null
[ "$(cat "$T/status")" = 503 ] || fail "/healthz with a full store: $(cat "$T/status") $(cat "$T/resp")"
[ "$(jq_ "$T/resp" "d['ok']")" = False ] || fail "/healthz ok: $(cat "$T/resp")"
jq_ "$T/resp" "d['error']" | grep -Eqi "full|too large|space" || fail "/healthz reason: $(cat "$T/resp")"
# the status of a full store is 507 however often it is hit
for i in 1 2 3; do
    curl -s -o "$T/resp" -w '%{http_code}' -X POST --data-binary @"$T/job.json" "$ADDR/v1/jobs" >"$T/status" || echo 000 >"$T/status"
    [ "$(cat "$T/status")" = 507 ] || fail "POST with a full store, again: $(cat "$T/status") $(head -c 300 "$T/resp")"
done
expect GET /metrics - 200
grep -q '^g16d_store_errors_total [1-9]' "$T/resp" || fail "store errors not counted"
kill -TERM "$G16D_PID"
wait "$G16D_PID" || true
G16D_PID=

# restart without the limit: integrity, and every accepted job completes
python3 -c "
import sqlite3,sys
c=sqlite3.connect(sys.argv[1]); r=c.execute('PRAGMA integrity_check').fetchone()[0]
assert r=='ok', r" "$T/jobs.db" || fail "integrity_check"
G16D_BIN=$REAL
start_g16d --key "k:$T/k/c.zkey" --heartbeat-s 0.5 --lease-s 5
for id in "${ACCEPTED[@]}"; do
    F=$(wait_job "$id" 240)
    [ "$(jq_ "$F" "d['state']")" = done ] || fail "job $id: $(head -c 600 "$F")"
done
verify_job "$F" "$T/k/vk.json"
stop_g16d
echo "test_daemon_diskfull: OK (${#ACCEPTED[@]} jobs accepted before the store filled)"
