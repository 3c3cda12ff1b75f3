#!/usr/bin/env bash
# g16d durability: kill -9 in mid-job, restart on the same SQLite store:
# every accepted job completes (partitions that were running are queued
# again, attempts count up), results finished before the crash are still
# there unchanged. Then a graceful SIGTERM in mid-job: new jobs get 503,
# the running partition finishes, the queued ones go back to the store,
# exit code 0, and the next start finishes the job.
set -euo pipefail
. "$(dirname "$0")/daemon/lib.sh"

make_key "$T/k" 12 4
make_key "$T/k8" 8 2
FLAGS=(--heartbeat-s 0.5 --lease-s 5 --key "k:$T/k/c.zkey" --workers 1 --queue-extra 1 --keys-file "$T/keys.json")
start_g16d "${FLAGS[@]}"
# a second g16d on the same SQLite store refuses to start (the store's lock)
rc=0
timeout 30 "$G16D_BIN" --listen 127.0.0.1:0 --store "sqlite:$T/jobs.db" --allowed-roots "$T" >"$T/second.log" 2>&1 ||
    rc=$?
[ "$rc" != 0 ] || fail "a second g16d started on the same SQLite store"
grep -q "in use by another g16d" "$T/second.log" || fail "second g16d (rc $rc): $(head -c 400 "$T/second.log")"
# a key registered over the API survives the restarts (keys_file)
expect POST /v1/keys "{\"id\":\"k8\",\"path\":\"$T/k8/c.zkey\"}" 201
base64 -w0 "$T/k/w.2.wtns" >"$T/w2.b64"
wl() { # witness list: N entries cycling through the 4 files, every 4th inline
    python3 -c "
import json,sys
n=int(sys.argv[1]); b=open(sys.argv[3]).read().strip(); print(json.dumps([{'data':b} if i%4==2 else {'path':'%s/k/w.%d.wtns'%(sys.argv[2],i%4)} for i in range(n)]))" "$1" "$T" "$T/w2.b64"
}
wl 8 >"$T/wa.json"
wl 6 >"$T/wb.json"
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":$(cat "$T/wa.json")}" 202
JA=$(jq_ "$T/resp" "d['id']")
expect POST /v1/jobs "{\"key\":\"k\",\"priority\":\"low\",\"witnesses\":$(cat "$T/wb.json")}" 202
JB=$(jq_ "$T/resp" "d['id']")
expect POST /v1/jobs "{\"key\":\"k8\",\"priority\":\"low\",\"witnesses\":[{\"path\":\"$T/k8/w.0.wtns\"},{\"path\":\"$T/k8/w.1.wtns\"}]}" 202
J8=$(jq_ "$T/resp" "d['id']")
# wait for the first finished partition (watching the log: quick enough for
# a release build's ~30 ms partitions), take a snapshot, then crash
for _ in $(seq 1 3000); do
    grep -q '"event":"partition_done"' "$T/g16d.log" && break
    sleep 0.01
done
req GET "/v1/jobs/$JA" >"$T/before.json"
req GET "/v1/jobs" >"$T/list_before.json"
kill -KILL "$G16D_PID"
wait "$G16D_PID" 2>/dev/null || true
[ "$(jq_ "$T/before.json" "d['progress']['done']")" -ge 1 ] || fail "no partition finished"
G16D_PID=
DONE_BEFORE=$(jq_ "$T/before.json" "[p['index'] for p in d['partitions'] if p['state']=='done']")
echo "killed with partitions $DONE_BEFORE of job $JA done"

start_g16d "${FLAGS[@]}"
grep '"event":"started"' "$T/g16d.log" | tail -1 | grep -q '"requeued":[1-9]' || fail "restart requeued nothing"
FA=$(wait_job "$JA" 240)
FB=$(wait_job "$JB" 240)
[ "$(jq_ "$FA" "d['state']")" = done ] || fail "job $JA after restart: $(head -c 600 "$FA")"
[ "$(jq_ "$FB" "d['state']")" = done ] || fail "job $JB after restart: $(head -c 600 "$FB")"
verify_job "$FA" "$T/k/vk.json"
verify_job "$FB" "$T/k/vk.json"
F8=$(wait_job "$J8" 240)
[ "$(jq_ "$F8" "d['state']")" = done ] || fail "job $J8 of the API-registered key after restart"
verify_job "$F8" "$T/k8/vk.json"
expect GET /v1/keys - 200
[ "$(jq_ "$T/resp" "sorted(k['id'] for k in d['keys'])")" = "['k', 'k8']" ] || fail "keys after restart: $(cat "$T/resp")"
python3 -c "
import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
for pa,pb in zip(a['partitions'],b['partitions']):
    if pa['state']=='done':
        assert pa['proof']==pb['proof'] and pa['public']==pb['public'], 'result of partition %d changed' % pa['index']
assert any(p['attempts']>=2 for p in b['partitions']), 'no partition was claimed twice'
" "$T/before.json" "$FA" || fail "results before/after the crash"
# started_at (GET /v1/jobs): JA's first claim, unchanged by the restart's
# re-claims; JB and J8 were queued (null) and started after the restart
req GET "/v1/jobs" >"$T/list_after.json"
python3 - "$T/list_before.json" "$T/list_after.json" "$JA" "$JB" "$J8" <<'EOF' || fail "started_at across the crash"
import json, sys, time
before = {j["id"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
after = {j["id"]: j for j in json.load(open(sys.argv[2]))["jobs"]}
ja, jb, j8 = (int(x) for x in sys.argv[3:6])
assert isinstance(before[ja]["started_at"], float), before[ja]
assert before[jb]["state"] == "queued" and before[jb]["started_at"] is None, before[jb]
assert before[j8]["state"] == "queued" and before[j8]["started_at"] is None, before[j8]
assert after[ja]["started_at"] == before[ja]["started_at"], (before[ja], after[ja])
for i in (ja, jb, j8):
    j = after[i]
    assert j["state"] == "done" and j["submitted_at"] <= j["started_at"] <= j["finished_at"] <= time.time() + 1, j
assert after[jb]["started_at"] > after[ja]["started_at"], (after[ja], after[jb])
EOF

# graceful drain
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":$(wl 8)}" 202
JC=$(jq_ "$T/resp" "d['id']")
for _ in $(seq 1 600); do
    req GET "/v1/jobs/$JC?results=0" >"$T/c.json"
    [ "$(jq_ "$T/c.json" "d['progress']['done']")" -ge 1 ] && break
    sleep 0.05
done
req GET "/v1/jobs?after=$((JC - 1))&limit=1" >"$T/c_list.json"
kill -TERM "$G16D_PID"
for _ in $(seq 1 100); do
    grep -q '"event":"drain_start"' "$T/g16d.log" && break
    sleep 0.05
done
req POST /v1/jobs "{\"key\":\"k\",\"witnesses\":$(wl 1)}" >/dev/null
case $(cat "$T/status") in
503 | 000) ;; # draining, or already gone
*) fail "POST during drain: $(cat "$T/status") $(cat "$T/resp")" ;;
esac
rc=0
wait "$G16D_PID" || rc=$?
G16D_PID=
[ "$rc" = 0 ] || fail "exit code $rc after SIGTERM"
grep -q '"event":"drain_done"' "$T/g16d.log" || fail "no drain_done"
start_g16d "${FLAGS[@]}"
FC=$(wait_job "$JC" 240)
[ "$(jq_ "$FC" "d['state']")" = done ] || fail "job $JC after drain+restart: $(head -c 600 "$FC")"
verify_job "$FC" "$T/k/vk.json"
# the partitions released at the drain ran again after the restart; the job's start is still its first claim
req GET "/v1/jobs?after=$((JC - 1))&limit=1" >"$T/c_list2.json"
python3 -c "
import json,sys
a=json.load(open(sys.argv[1]))['jobs'][0]; b=json.load(open(sys.argv[2]))['jobs'][0]
assert a['started_at'] is not None and a['started_at'] == b['started_at'] <= b['finished_at'], (a, b)
" "$T/c_list.json" "$T/c_list2.json" || fail "started_at across the drain"
# partitions released at the drain were not counted as failed attempts beyond max_attempts
[ "$(jq_ "$FC" "max(p['attempts'] for p in d['partitions'])")" -le 3 ] || fail "attempts"

# a second SIGTERM cuts the drain short: still exit 0, nothing lost
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":$(wl 6)}" 202
JD=$(jq_ "$T/resp" "d['id']")
for _ in $(seq 1 600); do
    req GET "/v1/jobs/$JD?results=0" >"$T/d.json"
    [ "$(jq_ "$T/d.json" "d['state']")" = running ] && break
    sleep 0.05
done
kill -TERM "$G16D_PID"
sleep 0.05
kill -TERM "$G16D_PID" 2>/dev/null || true
rc=0
wait "$G16D_PID" || rc=$?
G16D_PID=
[ "$rc" = 0 ] || fail "exit code $rc after two SIGTERMs"
start_g16d "${FLAGS[@]}"
FD=$(wait_job "$JD" 240)
[ "$(jq_ "$FD" "d['state']")" = done ] || fail "job $JD after a cut drain: $(head -c 600 "$FD")"
verify_job "$FD" "$T/k/vk.json"
expect DELETE /v1/keys/k8 - 200
stop_g16d
start_g16d "${FLAGS[@]}"
expect GET /v1/keys - 200
[ "$(jq_ "$T/resp" "[k['id'] for k in d['keys']]")" = "['k']" ] || fail "a removed key came back: $(cat "$T/resp")"
stop_g16d

# README's quick start: keys registered over the API without --keys-file
# survive kill -9 (the default keys file beside the SQLite store)
QS=(--store "sqlite:$T/qs.db" --heartbeat-s 0.5 --lease-s 5 --workers 1 --queue-extra 0)
start_g16d "${QS[@]}"
expect POST /v1/keys "{\"id\":\"qk\",\"path\":\"$T/k/c.zkey\"}" 201
[ -s "$T/qs.db.keys.json" ] || fail "no default keys file $T/qs.db.keys.json"
expect POST /v1/jobs "{\"key\":\"qk\",\"witnesses\":$(wl 3)}" 202
JQ=$(jq_ "$T/resp" "d['id']")
kill -KILL "$G16D_PID"
wait "$G16D_PID" 2>/dev/null || true
G16D_PID=
start_g16d "${QS[@]}"
expect GET /v1/keys - 200
[ "$(jq_ "$T/resp" "[k['id'] for k in d['keys']]")" = "['qk']" ] || fail "quick-start key after kill -9: $(cat "$T/resp")"
FQ=$(wait_job "$JQ" 120)
[ "$(jq_ "$FQ" "d['state']")" = done ] || fail "quick-start job $JQ after kill -9: $(head -c 600 "$FQ")"
verify_job "$FQ" "$T/k/vk.json"
stop_g16d
# keys_file = none keeps nothing
start_g16d --store "sqlite:$T/none.db" --keys-file none
expect POST /v1/keys "{\"id\":\"nk\",\"path\":\"$T/k/c.zkey\"}" 201
stop_g16d
[ ! -e "$T/none.db.keys.json" ] || fail "keys_file = none wrote a keys file"
echo "test_daemon_restart: OK"
