# Shared helpers of the g16d shell tests (tests/test_daemon_*.sh): start a
# g16d on a free loopback port with a temporary store, talk to it with curl,
# read JSON with python3. Source it after setting -euo pipefail.
G16_BIN=${G16_BIN:-build/g16}
G16D_BIN=${G16D_BIN:-}
if [ -z "$G16D_BIN" ] || [ ! -x "$G16D_BIN" ]; then
    echo "SKIP: G16D_BIN not set (daemon not built)"
    exit 77
fi
for t in curl python3; do
    command -v $t >/dev/null || { echo "SKIP: $t missing"; exit 77; }
done
T=$(mktemp -d /tmp/g16d-test.XXXXXX)
G16D_PID=
cleanup() {
    if [ -n "$G16D_PID" ] && kill -0 "$G16D_PID" 2>/dev/null; then kill -KILL "$G16D_PID" 2>/dev/null || true; fi
    if [ "${KEEP_TMP:-0}" = 1 ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*"
    if [ -f "$T/g16d.log" ]; then echo "--- g16d log (tail):"; tail -n 30 "$T/g16d.log"; fi
    exit 1
}
# start_g16d [extra flags...]: starts g16d in the background on a free port,
# waits for its ready file, sets G16D_PID and ADDR (http://127.0.0.1:PORT).
start_g16d() {
    rm -f "$T/ready"
    "$G16D_BIN" --listen 127.0.0.1:0 --store "sqlite:$T/jobs.db" --allowed-roots "$T" \
        --ready-file "$T/ready" "$@" >>"$T/g16d.log" 2>&1 &
    G16D_PID=$!
    for _ in $(seq 1 300); do
        [ -s "$T/ready" ] && break
        kill -0 "$G16D_PID" 2>/dev/null || fail "g16d exited at start-up"
        sleep 0.1
    done
    [ -s "$T/ready" ] || fail "g16d did not become ready"
    ADDR="http://$(cat "$T/ready")"
}
# stop_g16d: SIGTERM and wait; the exit code must be 0.
stop_g16d() {
    kill -TERM "$G16D_PID"
    local rc=0
    wait "$G16D_PID" || rc=$?
    G16D_PID=
    [ "$rc" = 0 ] || fail "g16d exited with $rc after SIGTERM"
}
# req METHOD PATH [BODY]: prints the body; the HTTP status goes to $T/status.
req() {
    local m=$1 p=$2 auth=()
    [ -n "${TOKEN:-}" ] && auth=(-H "Authorization: Bearer $TOKEN")
    if [ $# -ge 3 ]; then
        printf '%s' "$3" >"$T/body.json"
        curl -s -o "$T/resp" -w '%{http_code}' -X "$m" "${auth[@]}" -H 'Content-Type: application/json' \
            --data-binary @"$T/body.json" "$ADDR$p" >"$T/status" || echo 000 >"$T/status"
    else
        curl -s -o "$T/resp" -w '%{http_code}' -X "$m" "${auth[@]}" "$ADDR$p" >"$T/status" || echo 000 >"$T/status"
    fi
    cat "$T/resp"
}
# expect METHOD PATH BODY|- STATUS [error-code]
expect() {
    local m=$1 p=$2 b=$3 want=$4 code=${5:-}
    if [ "$b" = - ]; then req "$m" "$p" >/dev/null; else req "$m" "$p" "$b" >/dev/null; fi
    local got
    got=$(cat "$T/status")
    [ "$got" = "$want" ] || fail "$m $p: status $got, expected $want: $(head -c 400 "$T/resp")"
    if [ -n "$code" ]; then
        local c
        c=$(jq_ "$T/resp" "d['error']['code']")
        [ "$c" = "$code" ] || fail "$m $p: error code '$c', expected '$code': $(head -c 400 "$T/resp")"
    fi
}
# jq_ FILE EXPR: evaluates a python expression over d = the JSON in FILE.
jq_() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# make_key DIR LOGN PARTS [curve]: a synthetic circuit, key and witnesses.
make_key() {
    local dir=$1 logn=$2 parts=$3 curve=${4:-bn254}
    mkdir -p "$dir"
    "$G16_BIN" synth --curve "$curve" --log-n "$logn" --profile dense --out "$dir/c.r1cs" --witness "$dir/w.wtns" \
        --partitions "$parts" >/dev/null || fail "g16 synth"
    "$G16_BIN" setup --insecure-test-setup --curve "$curve" "$dir/c.r1cs" "$dir/c.zkey" --vk "$dir/vk.json" \
        >/dev/null 2>&1 || fail "g16 setup"
}
# verify_job FILE VK: every partition of the job view in FILE has a proof
# that g16 verify accepts.
verify_job() {
    local f=$1 vk=$2 n i
    n=$(jq_ "$f" "len(d['partitions'])")
    for i in $(seq 0 $((n - 1))); do
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); p=d['partitions'][$i]
json.dump(p['proof'], open(sys.argv[2],'w')); json.dump(p['public'], open(sys.argv[3],'w'))" "$f" "$T/proof.json" "$T/public.json"
        "$G16_BIN" verify "$vk" "$T/public.json" "$T/proof.json" >/dev/null || fail "partition $i of $f does not verify"
    done
}
# wait_job ID [seconds]: long-polls until the job is finished; prints the view's file.
wait_job() {
    local id=$1 limit=${2:-120} end=$((SECONDS + ${2:-120}))
    while :; do
        req GET "/v1/jobs/$id?wait=10" >"$T/job$id.json"
        [ "$(cat "$T/status")" = 200 ] || fail "GET /v1/jobs/$id: $(cat "$T/status") $(cat "$T/resp")"
        case $(jq_ "$T/job$id.json" "d['state']") in done | failed | cancelled) break ;; esac
        [ $SECONDS -lt $end ] || fail "job $id not finished after ${limit}s"
    done
    echo "$T/job$id.json"
}
