#!/usr/bin/env bash
# g16d end to end over HTTP: start-up validation (bad options exit 2), auth,
# key registration, jobs from paths and inline base64, the proofs verified
# with g16 verify (and snarkjs for one when tests/js is installed), every
# admission error of the API with its status and code, idempotency,
# cancellation, /metrics, /v1/status, /healthz and a clean SIGTERM exit.
set -euo pipefail
. "$(dirname "$0")/daemon/lib.sh"

# ---- start-up validation: every bad option is refused with exit code 2 ----
refused() {
    local rc=0
    "$G16D_BIN" "$@" >"$T/refused.out" 2>&1 || rc=$?
    [ "$rc" = 2 ] || fail "g16d $* exited $rc, expected 2: $(cat "$T/refused.out")"
    grep -q "g16d:" "$T/refused.out" || fail "g16d $*: no message"
}
printf 'listen = 127.0.0.1:0\nno_such_option = 1\n' >"$T/bad1.conf"
refused --config "$T/bad1.conf"
grep -q "bad1.conf:2: unknown option 'no_such_option'" "$T/refused.out" || fail "message: $(cat "$T/refused.out")"
printf '# comment\nworkers = lots\n' >"$T/bad2.conf"
refused --config "$T/bad2.conf"
refused --listen 0.0.0.0:8416                    # network address without a token
refused --verify off                             # verify off needs bench
refused --max-body-bytes 12Q
refused --allowed-roots "$T/does-not-exist"
refused --heartbeat-s 30 --lease-s 10
refused --key nocolon
refused --backend tpu
refused --store "sqlite:$T/no/such/dir/jobs.db" --listen 127.0.0.1:0
refused stray-argument
"$G16D_BIN" --help >"$T/help.txt" # not piped into grep -q: a long text would meet a closed pipe
grep -q -- "--max-witnesses" "$T/help.txt" || fail "--help"
grep -q -- "gpu.msm_window_bits" "$T/help.txt" || fail "--help: library options"
# the sample config is valid (its paths overridden by flags)
start_g16d --config examples/g16d.conf --keys-file "$T/keys.json"
expect GET /healthz - 200
stop_g16d

# ---- keys and witnesses ---------------------------------------------------
make_key "$T/k" 8 3
make_key "$T/k2" 9 2
make_key "$T/kb" 6 2 bls12-381
mkdir -p "$T/outside"
OUT=$(mktemp -d /tmp/g16d-outside.XXXXXX)
cp "$T/k/w.0.wtns" "$OUT/w.wtns"
TOKEN=secret-token-0123456789
printf 'token = %s\nmax_witnesses = 40\nmax_body_bytes = 1M\nmax_inline_bytes = 512K\n' "$TOKEN" >"$T/g16d.conf"
printf 'gpu_sync = block\n' >>"$T/g16d.conf"
start_g16d --config "$T/g16d.conf" --heartbeat-s 0.5 --lease-s 5 --request-timeout-s 2 --gpu.msm_window_bits=9

# auth
SAVED=$TOKEN
TOKEN= expect GET /healthz - 200
TOKEN= expect GET /v1/keys - 401 unauthorized
TOKEN=wrong-token-0123456789 expect GET /v1/keys - 401 unauthorized
TOKEN=${SAVED}x expect GET /v1/keys - 401 unauthorized
TOKEN=$SAVED

# keys
expect POST /v1/keys "{\"id\":\"k\",\"path\":\"$T/k/c.zkey\"}" 201
[ "$(jq_ "$T/resp" "d['curve'], d['n_public'], d['domain'], d['tier']")" = "bn254 2 256 mmap" ] ||
    fail "key reply $(cat "$T/resp")"
expect POST /v1/keys "{\"id\":\"k\",\"path\":\"$T/k/c.zkey\"}" 200
expect POST /v1/keys "{\"id\":\"k\",\"path\":\"$T/k2/c.zkey\"}" 409 conflict
expect POST /v1/keys "{\"id\":\"k2\",\"path\":\"$T/k2/c.zkey\",\"tier\":\"host\"}" 201
expect POST /v1/keys "{\"id\":\"kb\",\"path\":\"$T/kb/c.zkey\"}" 201
[ "$(jq_ "$T/resp" "d['curve']")" = bls12-381 ] || fail "bls key curve"
expect POST /v1/keys "{\"id\":\"x\",\"path\":\"$T/k/c.zkey\",\"tier\":\"gpu\"}" 400 invalid_arg
expect POST /v1/keys "{\"id\":\"bad id\",\"path\":\"$T/k/c.zkey\"}" 400 invalid_arg
expect POST /v1/keys "{\"id\":\"x\",\"path\":\"$OUT/w.wtns\"}" 403 forbidden_path
expect POST /v1/keys "{\"id\":\"x\",\"path\":\"$T/k/../../$(basename "$OUT")/w.wtns\"}" 403 forbidden_path
expect POST /v1/keys "{\"id\":\"x\",\"path\":\"$T/nope.zkey\"}" 404 not_found
expect POST /v1/keys "{\"id\":\"x\",\"path\":\"$T/k/w.0.wtns\"}" 422 format
head -c 3000 "$T/k/c.zkey" >"$T/trunc.zkey"
expect POST /v1/keys "{\"id\":\"x\",\"path\":\"$T/trunc.zkey\"}" 422 truncated
expect POST /v1/keys "{\"id\":\"x\"}" 400 invalid_arg
expect GET /v1/keys - 200
[ "$(jq_ "$T/resp" "sorted(k['id'] for k in d['keys'])")" = "['k', 'k2', 'kb']" ] || fail "key list $(cat "$T/resp")"

# a job from a path and an inline witness
W1=$(base64 -w0 "$T/k/w.1.wtns")
expect POST /v1/jobs "{\"key\":\"k\",\"priority\":\"high\",\"witnesses\":[{\"path\":\"$T/k/w.0.wtns\"},{\"data\":\"$W1\"},{\"path\":\"$T/k/w.2.wtns\"}]}" 202
[ "$(jq_ "$T/resp" "d['partitions'], d['existing']")" = "3 False" ] || fail "job reply $(cat "$T/resp")"
J1=$(jq_ "$T/resp" "d['id']")
F=$(wait_job "$J1")
[ "$(jq_ "$F" "d['state'], d['priority'], d['progress']['done']")" = "done high 3" ] || fail "job $J1: $(cat "$F")"
[ "$(jq_ "$F" "all(p['stats']['verify_ms'] >= 0 and p['error'] is None for p in d['partitions'])")" = True ] ||
    fail "job $J1 stats $(cat "$F")"
verify_job "$F" "$T/k/vk.json"
# results=0 leaves the proofs out
req GET "/v1/jobs/$J1?results=0" >/dev/null
[ "$(jq_ "$T/resp" "'proof' in d['partitions'][0]")" = False ] || fail "results=0"
# snarkjs checks one of the daemon's proofs
SNARKJS=tests/js/node_modules/snarkjs/build/cli.cjs
if [ -f "$SNARKJS" ] && command -v node >/dev/null; then
    jq_ "$F" "json.dumps(d['partitions'][1]['proof'])" >"$T/sj_proof.json"
    jq_ "$F" "json.dumps(d['partitions'][1]['public'])" >"$T/sj_public.json"
    node "$SNARKJS" groth16 verify "$T/k/vk.json" "$T/sj_public.json" "$T/sj_proof.json" | grep -q "OK" ||
        fail "snarkjs rejects the daemon's proof"
    echo "snarkjs: daemon proof OK"
else
    echo "note: snarkjs not installed (npm ci --prefix tests/js); skipped its check"
fi

# idempotency
BODY="{\"key\":\"k\",\"idempotency_key\":\"abc-1\",\"witnesses\":[{\"path\":\"$T/k/w.0.wtns\"}]}"
expect POST /v1/jobs "$BODY" 202
J2=$(jq_ "$T/resp" "d['id']")
expect POST /v1/jobs "$BODY" 200
[ "$(jq_ "$T/resp" "d['id'], d['existing']")" = "$J2 True" ] || fail "idempotent replay $(cat "$T/resp")"
expect POST /v1/jobs "{\"key\":\"k\",\"idempotency_key\":\"abc-1\",\"witnesses\":[{\"path\":\"$T/k/w.0.wtns\"},{\"path\":\"$T/k/w.1.wtns\"}]}" 409 conflict

# admission errors
expect POST /v1/jobs '{"key": "k", "witnesses": [' 400 invalid_json
expect POST /v1/jobs '[1,2]' 400 invalid_json
expect POST /v1/jobs "{\"key\":\"nokey\",\"witnesses\":[{\"path\":\"$T/k/w.0.wtns\"}]}" 404 unknown_key
expect POST /v1/jobs '{"key":"k","witnesses":[]}' 400 invalid_arg
expect POST /v1/jobs '{"key":"k"}' 400 invalid_arg
expect POST /v1/jobs "{\"key\":\"k\",\"priority\":\"urgent\",\"witnesses\":[{\"path\":\"$T/k/w.0.wtns\"}]}" 400 invalid_arg
expect POST /v1/jobs "{\"key\":\"k\",\"timeout_s\":-1,\"witnesses\":[{\"path\":\"$T/k/w.0.wtns\"}]}" 400 invalid_arg
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":[{\"path\":\"$OUT/w.wtns\"}]}" 403 forbidden_path
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":[{\"path\":\"$T/k/none.wtns\"}]}" 404 not_found
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":[{\"path\":\"$OUT/none.wtns\"}]}" 403 forbidden_path
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":[{\"path\":\"$T/k/../../nowhere/none.wtns\"}]}" 403 forbidden_path
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":[{\"path\":\"relative.wtns\"}]}" 400 invalid_arg
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":[{\"path\":\"$T/kb/w.0.wtns\"}]}" 422 wrong_curve
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":[{\"path\":\"$T/k2/w.0.wtns\"}]}" 422 size_mismatch
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":[{\"path\":\"$T/k/c.zkey\"}]}" 422 format
expect POST /v1/jobs '{"key":"k","witnesses":[{"data":"not base64!"}]}' 400 invalid_arg
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":[{\"data\":\"$(head -c 100 "$T/k/w.0.wtns" | base64 -w0)\"}]}" 422 truncated
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":[{\"path\":\"$T/k/w.0.wtns\",\"data\":\"$W1\"}]}" 400 invalid_arg
MANY=$(python3 -c "import json; print(json.dumps({'key':'k','witnesses':[{'path':'$T/k/w.0.wtns'}]*41}))")
expect POST /v1/jobs "$MANY" 413 too_large
head -c 600000 /dev/zero | base64 -w0 >"$T/big.b64"
BIG="{\"key\":\"k\",\"witnesses\":[{\"data\":\"$(cat "$T/big.b64")\"}]}"
expect POST /v1/jobs "$BIG" 413 too_large                       # above max_inline_bytes
head -c 1200000 /dev/zero | base64 -w0 >"$T/big2.b64"
expect POST /v1/jobs "{\"key\":\"k\",\"witnesses\":[{\"data\":\"$(cat "$T/big2.b64")\"}]}" 413 too_large   # above max_body_bytes
expect GET /v1/jobs/999999 - 404 not_found
expect GET /v1/jobs/abc - 404 not_found
expect GET "/v1/jobs/$J1?wait=x" - 400 invalid_arg
expect DELETE /v1/jobs/999999 - 404 not_found
expect PUT /v1/jobs - 405 method_not_allowed
expect GET /v1/nothing - 404 not_found

# cancellation: a long job cancelled at once ends cancelled (or done if it won the race)
MANYW=$(python3 -c "import json; print(json.dumps({'key':'k','priority':'low','witnesses':[{'path':'$T/k/w.%d.wtns' % (i % 3)} for i in range(40)]}))")
expect POST /v1/jobs "$MANYW" 202
J3=$(jq_ "$T/resp" "d['id']")
expect DELETE "/v1/jobs/$J3" - 200
F=$(wait_job "$J3")
[ "$(jq_ "$F" "d['state']")" = cancelled ] || fail "job $J3 after DELETE: $(jq_ "$F" "d['state']")"
[ "$(jq_ "$F" "d['progress']['cancelled'] > 0")" = True ] || fail "no cancelled partitions"
expect DELETE "/v1/jobs/$J1" - 200
[ "$(jq_ "$T/resp" "d['state']")" = done ] || fail "DELETE of a finished job changed it"

# priority: a CRITICAL job submitted after a long LOW one finishes first
LOWJ=$(python3 -c "import json; print(json.dumps({'key':'k','priority':'low','witnesses':[{'path':'$T/k/w.%d.wtns' % (i % 3)} for i in range(24)]}))")
expect POST /v1/jobs "$LOWJ" 202
JL=$(jq_ "$T/resp" "d['id']")
expect POST /v1/jobs "{\"key\":\"k\",\"priority\":\"critical\",\"witnesses\":[{\"path\":\"$T/k/w.0.wtns\"}]}" 202
JCR=$(jq_ "$T/resp" "d['id']")
F=$(wait_job "$JCR")
[ "$(jq_ "$F" "d['state']")" = done ] || fail "critical job"
F=$(wait_job "$JL")
[ "$(jq_ "$F" "d['state'], d['progress']['done']")" = "done 24" ] || fail "low job"
# in the log, the critical partition is done before the low job's last one
python3 -c "
import json,sys
ev=[json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
done=[(e['job'],e['partition']) for e in ev if e['event']=='partition_done']
crit=done.index((int(sys.argv[2]),0)); last=max(i for i,(j,_) in enumerate(done) if j==int(sys.argv[3]))
assert crit < last, 'critical done at %d, low job done at %d' % (crit, last)
" "$T/g16d.log" "$JCR" "$JL" || fail "the critical job did not overtake the low one"
# timeout_s: a job that cannot finish in time fails with code timeout
TOJ=$(python3 -c "import json; print(json.dumps({'key':'k','timeout_s':0.2,'witnesses':[{'path':'$T/k/w.%d.wtns' % (i % 3)} for i in range(40)]}))")
expect POST /v1/jobs "$TOJ" 202
JT=$(jq_ "$T/resp" "d['id']")
F=$(wait_job "$JT")
[ "$(jq_ "$F" "d['state']")" = failed ] || fail "job with timeout_s: $(jq_ "$F" "d['state']")"
[ "$(jq_ "$F" "any(p['error'] and p['error']['code']=='timeout' for p in d['partitions'])")" = True ] ||
    fail "no partition failed with code timeout"

# a BLS12-381 job; the idempotent job; key removal
expect POST /v1/jobs "{\"key\":\"kb\",\"witnesses\":[{\"path\":\"$T/kb/w.0.wtns\"}]}" 202
J4=$(jq_ "$T/resp" "d['id']")
F=$(wait_job "$J4")
[ "$(jq_ "$F" "d['state']")" = done ] || fail "bls job: $(cat "$F")"
verify_job "$F" "$T/kb/vk.json"
F=$(wait_job "$J2")
[ "$(jq_ "$F" "d['state']")" = done ] || fail "job $J2"
expect DELETE /v1/keys/k2 - 200
expect DELETE /v1/keys/k2 - 404 not_found
expect POST /v1/jobs "{\"key\":\"k2\",\"witnesses\":[{\"path\":\"$T/k2/w.0.wtns\"}]}" 404 unknown_key

# a body trickling in (one byte per 0.2 s) is cut after request_timeout_s
python3 - "$ADDR" "$TOKEN" <<'PY' || fail "a trickling body was not cut by request_timeout_s"
import socket, sys, time
host, port = sys.argv[1][len("http://"):].rsplit(":", 1)
s = socket.create_connection((host, int(port)))
s.sendall(("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 1000\r\n\r\n" % sys.argv[2]).encode())
s.settimeout(0.2)
t0 = time.time()
while time.time() - t0 < 15:
    try:
        s.sendall(b" ")
        if s.recv(4096) == b"":
            break
    except socket.timeout:
        continue
    except OSError:
        break
dt = time.time() - t0
print("trickling body cut after %.1f s" % dt)
sys.exit(0 if dt < 8 else 1)
PY

# observability
req GET /metrics >"$T/metrics.txt"
grep -q '^g16d_up 1$' "$T/metrics.txt" || fail "metrics: g16d_up"
grep -q '^g16d_http_requests_total{code="401"} [1-9]' "$T/metrics.txt" || fail "metrics: 401 count"
grep -q '^g16d_jobs{state="done"} [1-9]' "$T/metrics.txt" || fail "metrics: jobs"
grep -q '^g16_' "$T/metrics.txt" || fail "metrics: engine metrics missing"
expect GET /v1/status - 200
[ "$(jq_ "$T/resp" "d['store'], d['backend'], len(d['keys'])")" = "sqlite cpu 2" ] ||
    fail "status $(cat "$T/resp")"
# The library options in effect, with their sources (docs/config.md).
[ "$(jq_ "$T/resp" "d['options']['gpu.msm_window_bits']['value'], d['options']['gpu.msm_window_bits']['source'], d['options']['gpu.sync']['value'], d['options']['gpu.sync']['source'], d['options']['engine.pin']['source']")" = "9 flag block config default" ] ||
    fail "status options $(cat "$T/resp")"
grep -q '"event":"job_accepted"' "$T/g16d.log" || fail "log: no job_accepted line"
python3 -c "
import json,sys
for line in open(sys.argv[1]):
    if line.startswith('{'):
        o=json.loads(line); assert 'ts' in o and 'level' in o and 'event' in o, line
" "$T/g16d.log" || fail "log lines are not all JSON events"

stop_g16d
grep -q '"event":"stopped"' "$T/g16d.log" || fail "no stopped event"

# a Unix socket, token_file, log_file and SIGHUP (log rotation)
printf '%s\n' "$TOKEN" >"$T/token"
rm -f "$T/ready"
"$G16D_BIN" --listen "unix:$T/g16d.sock" --token-file "$T/token" --store "sqlite:$T/jobs.db" \
    --allowed-roots "$T" --ready-file "$T/ready" --log-file "$T/events.log" --key "k:$T/k/c.zkey" &
G16D_PID=$!
for _ in $(seq 1 300); do [ -s "$T/ready" ] && break; sleep 0.1; done
[ "$(cat "$T/ready")" = "unix:$T/g16d.sock" ] || fail "ready file: $(cat "$T/ready" 2>/dev/null)"
[ "$(stat -c %a "$T/g16d.sock")" = 660 ] || fail "unix socket mode $(stat -c %a "$T/g16d.sock"), expected 660 (socket_mode's default)"
U=(curl -s --unix-socket "$T/g16d.sock" -H "Authorization: Bearer $TOKEN")
"${U[@]}" "http://g16d/v1/jobs/$J1?results=0" | grep -q '"state":"done"' || fail "unix socket: job $J1 not there"
mv "$T/events.log" "$T/events.log.1"
kill -HUP "$G16D_PID"
for _ in $(seq 1 100); do [ -s "$T/events.log" ] && break; sleep 0.05; done
grep -q '"event":"log_reopened"' "$T/events.log" || fail "SIGHUP did not reopen the log file"
grep -q '"event":"started"' "$T/events.log.1" || fail "log_file"
stop_g16d
[ ! -e "$T/g16d.sock" ] || fail "socket file left behind"
# socket_mode
rm -f "$T/ready"
"$G16D_BIN" --listen "unix:$T/g16d.sock" --socket-mode 0600 --store "sqlite:$T/jobs.db" --ready-file "$T/ready" \
    >>"$T/g16d.log" 2>&1 &
G16D_PID=$!
for _ in $(seq 1 300); do [ -s "$T/ready" ] && break; sleep 0.1; done
[ "$(stat -c %a "$T/g16d.sock")" = 600 ] || fail "--socket-mode 0600 gave mode $(stat -c %a "$T/g16d.sock")"
stop_g16d
rc=0
"$G16D_BIN" --listen "unix:$T/g16d.sock" --socket-mode 0999 --store "sqlite:$T/jobs.db" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "--socket-mode 0999: exit $rc, expected 2"
rm -rf "$OUT"
echo "test_daemon_api: OK"
