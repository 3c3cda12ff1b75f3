#!/usr/bin/env bash
# Scale-out on PostgreSQL (docs/daemon-store.md): two g16d processes share one
# database. A multi-partition job is submitted to A; both daemons claim its
# partitions; A is killed with SIGKILL while it holds a running partition.
# The job still completes: B claims the partition whose lease expired. Every
# proof verifies (partitions proved by A and by B), each partition has
# exactly one recorded result, and the daemons' partition_done events add up
# to the partition count (none was recorded twice).
# Then A comes back (same owner) and is stopped with SIGTERM and no drain
# time while it proves: the partition it gives back (store_part_release) is
# taken by B at once, without waiting for a lease and without counting an
# attempt.
# Uses G16_TEST_PG_URL (scripts/test.sh starts a server), else starts its
# own throwaway server when PostgreSQL is installed, else skips.
set -euo pipefail
if [ ! -f "$(dirname "$0")/daemon/lib.sh" ]; then
    echo "SKIP: tests/daemon/lib.sh missing (g16d not merged)"
    exit 77
fi
. "$(dirname "$0")/daemon/lib.sh"
"$G16D_BIN" --help >/dev/null 2>&1 || { echo "SKIP: $G16D_BIN is not a working g16d"; exit 77; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
fail() {
    echo "FAIL: $*"
    for n in A B; do
        if [ -f "$T/g16d.$n.log" ]; then echo "--- g16d $n log (tail):"; tail -n 25 "$T/g16d.$n.log"; fi
    done
    exit 1
}

PSQL=$(command -v psql || true)
OWN_PG=
PIDS=()
cleanup_pg() {
    for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
    if [ -n "${SCHEMA:-}" ] && [ -n "$PSQL" ]; then
        "$PSQL" "$BASE_URL" -qc "DROP SCHEMA IF EXISTS $SCHEMA CASCADE" >/dev/null 2>&1 || true
    fi
    if [ -n "$OWN_PG" ]; then "$ROOT/scripts/pg-test-server.sh" stop "$OWN_PG" || true; rm -rf "$OWN_PG"; fi
    cleanup
}
trap cleanup_pg EXIT

BASE_URL=${G16_TEST_PG_URL:-}
if [ -z "$BASE_URL" ]; then
    if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
        echo "SKIP: G16_TEST_PG_URL not set and PostgreSQL not installed"
        exit 77
    fi
    OWN_PG=$(mktemp -d /tmp/g16-pg-XXXXXX)
    BASE_URL=$("$ROOT/scripts/pg-test-server.sh" start "$OWN_PG") || fail "cannot start a PostgreSQL test server"
fi
[ -n "$PSQL" ] || fail "psql not found"
case $BASE_URL in postgres*://*) ;; *) fail "G16_TEST_PG_URL must be a postgresql:// URI here: $BASE_URL" ;; esac
# a fresh schema for this test, chosen through the connection's options
SCHEMA=g16d_pg_$$
"$PSQL" "$BASE_URL" -qc "SET client_min_messages=warning; DROP SCHEMA IF EXISTS $SCHEMA CASCADE; CREATE SCHEMA $SCHEMA" \
    >/dev/null || fail "create schema"
case $BASE_URL in *\?*) sep='&' ;; *) sep='?' ;; esac
URL="$BASE_URL${sep}options=-csearch_path%3D$SCHEMA"
sql() { "$PSQL" "$URL" -XAtqc "$1"; }

NP=8
make_key "$T/k" 12 "$NP"
# lease 2 s, renewed every 0.3 s: a dead daemon's partition is free ~2 s later
FLAGS=(--store "$URL" --key "k:$T/k/c.zkey" --workers 1 --queue-extra 0 --lease-s 2 --heartbeat-s 0.3
    --allowed-roots "$T")
# start_one NAME [flags]: starts g16d NAME (owner NAME), sets PID_NAME and ADDR_NAME
start_one() {
    local n=$1
    shift
    rm -f "$T/ready.$n"
    "$G16D_BIN" --listen 127.0.0.1:0 --ready-file "$T/ready.$n" --owner "$n" "${FLAGS[@]}" "$@" >>"$T/g16d.$n.log" 2>&1 &
    local pid=$!
    PIDS+=("$pid")
    for _ in $(seq 1 300); do
        [ -s "$T/ready.$n" ] && break
        kill -0 "$pid" 2>/dev/null || { tail -20 "$T/g16d.$n.log"; fail "g16d $n exited at start-up"; }
        sleep 0.1
    done
    [ -s "$T/ready.$n" ] || fail "g16d $n did not become ready"
    eval "PID_$n=$pid; ADDR_$n=http://$(cat "$T/ready.$n")"
}
start_one A
start_one B
# shellcheck disable=SC2154 # set by start_one
ADDR=$ADDR_A
expect GET /v1/status - 200
[ "$(jq_ "$T/resp" "d['store']")" = postgresql ] || fail "store is not postgresql: $(head -c 300 "$T/resp")"

WL=$(python3 -c "import json,sys; print(json.dumps([{'path':'%s/k/w.%d.wtns'%(sys.argv[1],i)} for i in range($NP)]))" "$T")
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":$WL}" 202
J=$(jq_ "$T/resp" "d['id']")

# wait until A has finished a partition and holds a running one, then kill it
killed=0
for _ in $(seq 1 1200); do
    a_done=$(sql "SELECT count(*) FROM partitions WHERE job_id=$J AND state=2 AND owner='A'")
    a_run=$(sql "SELECT count(*) FROM partitions WHERE job_id=$J AND state=1 AND owner='A'")
    if [ "$a_done" -ge 1 ] && [ "$a_run" -ge 1 ]; then
        # shellcheck disable=SC2154
        kill -KILL "$PID_A"
        killed=1
        break
    fi
    sleep 0.05
done
[ "$killed" = 1 ] || fail "A never held a running partition after finishing one (done $a_done, running $a_run)"
wait "$PID_A" 2>/dev/null || true
STARTED=$(sql "SELECT extract(epoch FROM started) FROM jobs WHERE id=$J")
[ -n "$STARTED" ] || fail "job $J has no start time while running"
LOST=$(sql "SELECT idx FROM partitions WHERE job_id=$J AND state=1 AND owner='A'" | tr '\n' ' ')
echo "killed A (pid $PID_A) holding partition(s) $LOST of job $J"

# B finishes the job, including A's lost partition(s) after their lease
# shellcheck disable=SC2154
ADDR=$ADDR_B
F=$(wait_job "$J" 240)
[ "$(jq_ "$F" "d['state']")" = done ] || fail "job $J: $(head -c 800 "$F")"
verify_job "$F" "$T/k/vk.json"
[ "$(jq_ "$F" "sum(1 for p in d['partitions'] if p['proof'] and p['state']=='done')")" = "$NP" ] ||
    fail "not every partition has one proof"

# the store: A and B both proved partitions; A's lost ones went to B on a second attempt
by_a=$(sql "SELECT count(*) FROM partitions WHERE job_id=$J AND state=2 AND owner='A'")
by_b=$(sql "SELECT count(*) FROM partitions WHERE job_id=$J AND state=2 AND owner='B'")
echo "partitions proved: A $by_a, B $by_b"
[ "$by_a" -ge 1 ] && [ "$by_b" -ge 1 ] && [ $((by_a + by_b)) = "$NP" ] || fail "owners: A $by_a B $by_b of $NP"
for i in $LOST; do
    row=$(sql "SELECT owner || ' ' || attempts FROM partitions WHERE job_id=$J AND idx=$i")
    case $row in "B "[2-9]*) ;; *) fail "lost partition $i: owner/attempts '$row'" ;; esac
done
# the job's start is A's first claim, kept when B re-claimed A's lost partitions
[ "$(sql "SELECT extract(epoch FROM started) FROM jobs WHERE id=$J")" = "$STARTED" ] || fail "job $J's start changed"
for i in $LOST; do
    [ "$(sql "SELECT started > (SELECT started FROM jobs WHERE id=$J) FROM partitions WHERE job_id=$J AND idx=$i")" = t ] ||
        fail "lost partition $i was re-claimed no later than the job's start"
done
expect GET "/v1/jobs?after=$((J - 1))&limit=1" - 200
python3 - "$T/resp" "$STARTED" <<'EOF' || fail "started_at of job $J: $(cat "$T/resp")"
import json, sys, time
j = json.load(open(sys.argv[1]))["jobs"][0]
assert abs(j["started_at"] - float(sys.argv[2])) < 1e-3, j
assert j["submitted_at"] <= j["started_at"] <= j["finished_at"] <= time.time() + 1, j
EOF
# no partition recorded twice: done events across both logs = partitions
nd=$(cat "$T/g16d.A.log" "$T/g16d.B.log" | grep -c '"event":"partition_done"' || true)
[ "$nd" = "$NP" ] || fail "$nd partition_done events for $NP partitions"

# one proof checked by snarkjs too, when installed
SNARKJS="$ROOT/tests/js/node_modules/.bin/snarkjs"
if [ -x "$SNARKJS" ] && command -v node >/dev/null; then
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); p=d['partitions'][int(sys.argv[4])]
json.dump(p['proof'], open(sys.argv[2],'w')); json.dump(p['public'], open(sys.argv[3],'w'))" \
        "$F" "$T/proof.json" "$T/public.json" "${LOST%% *}"
    "$SNARKJS" groth16 verify "$T/k/vk.json" "$T/public.json" "$T/proof.json" | grep -q OK ||
        fail "snarkjs rejects the proof of partition ${LOST%% *}"
    echo "snarkjs verifies partition ${LOST%% *} (proved by B after A died)"
fi

# partition_done events of job $1 in the daemons' logs
done_events() {
    cat "$T/g16d.A.log" "$T/g16d.B.log" | python3 -c "
import json,sys
n=0
for l in sys.stdin:
    try: e=json.loads(l)
    except ValueError: continue
    if e.get('event')=='partition_done' and e.get('job')==int(sys.argv[1]): n+=1
print(n)" "$1"
}
[ "$(done_events "$J")" = "$NP" ] || fail "partition_done events of job $J: $(done_events "$J")"

# A again, then SIGTERM with no drain time while it proves: B takes the
# released partition at once (no lease wait, the attempt not counted).
# A partition that passes its last stage boundary before the signal lands
# completes instead of being released (a 2^12 proof is short), so A is
# restarted with a fresh job until one TERM catches a partition mid-proof.
J2=
for try in 1 2 3 4 5; do
    start_one A --drain-timeout-s 0
    ADDR=$ADDR_A
    expect POST /v1/jobs "{\"key\":\"k\",\"priority\":\"high\",\"witnesses\":$WL}" 202
    JT=$(jq_ "$T/resp" "d['id']")
    held=
    for _ in $(seq 1 1200); do
        held=$(sql "SELECT idx FROM partitions WHERE job_id=$JT AND state=1 AND owner='A' LIMIT 1")
        [ -n "$held" ] && break
        sleep 0.02
    done
    [ -n "$held" ] || fail "A never claimed a partition of job $JT"
    kill -TERM "$PID_A"
    rc=0
    wait "$PID_A" || rc=$?
    [ "$rc" = 0 ] || fail "A exited with $rc after SIGTERM"
    if grep '"event":"partition_released"' "$T/g16d.A.log" | grep -q "\"job\":$JT[,}]"; then
        J2=$JT
        break
    fi
    echo "try $try: A finished partition $held of job $JT before SIGTERM took effect; again"
done
[ -n "$J2" ] || fail "A released nothing in 5 tries"
ADDR=$ADDR_B
F2=$(wait_job "$J2" 240)
[ "$(jq_ "$F2" "d['state']")" = done ] || fail "job $J2: $(head -c 800 "$F2")"
verify_job "$F2" "$T/k/vk.json"
[ "$(done_events "$J2")" = "$NP" ] || fail "partition_done events of job $J2: $(done_events "$J2")"
released=$(python3 -c "
import json,sys
for l in open(sys.argv[1]):
    try: e=json.loads(l)
    except ValueError: continue
    if e.get('event')=='partition_released' and e.get('job')==int(sys.argv[2]): print(e['partition'])" "$T/g16d.A.log" "$J2")
[ -n "$released" ] || fail "A released no partition of job $J2"
for i in $released; do
    row=$(sql "SELECT owner || ' ' || attempts FROM partitions WHERE job_id=$J2 AND idx=$i")
    [ "$row" = "B 1" ] || fail "released partition $i of job $J2: owner/attempts '$row', expected 'B 1'"
done
maxatt=$(sql "SELECT max(attempts) FROM partitions WHERE job_id=$J2")
[ "$maxatt" = 1 ] || fail "job $J2: a released partition counted an attempt (max attempts $maxatt)"
echo "A released partition(s) $(echo $released) of job $J2 on SIGTERM; B proved them on their first counted attempt"

# B drains cleanly
# shellcheck disable=SC2154
kill -TERM "$PID_B"
rc=0
wait "$PID_B" || rc=$?
[ "$rc" = 0 ] || fail "B exited with $rc after SIGTERM"
echo "test_daemon_pg: OK"
