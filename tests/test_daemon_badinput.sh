#!/usr/bin/env bash
# Bad input against a real g16d: every malformed or hostile request gets the
# precise 4xx of docs/api.md with an {"error": {"code", "message"}} body, no
# job is created by any of them, and the daemon keeps serving: a good job
# submitted before and one after all of them complete and verify.
# Covers: malformed JSON (keys, jobs: 400 invalid_json), wrong types and
# values (400 invalid_arg), unknown key,
# missing files, paths outside the allowed roots (absolute, "..", symlink),
# bad key files, key id conflict, oversized body (413), too many witnesses
# (413), a huge witness count, oversized / bad inline witnesses, wrong-curve
# and wrong-size witnesses (422), unknown ids and routes (404), a body
# shorter than its Content-Length, idle and trickling (slow) clients, and a
# token daemon (401 without or with a wrong token), wrong methods (405),
# a reused idempotency key (409).
set -uo pipefail
. tests/daemon/client_lib.sh
d_require
seed=${G16_SEED:-$(date +%s)}
echo "test_daemon_badinput: seed $seed"
tmp=$(mktemp -d)
tmp=$(cd "$tmp" && pwd -P)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT
R=$tmp/root; mkdir -p $R
D_BODY=$tmp/resp

d_circuit $R/bn6 bn254 6 2 $seed && d_circuit $R/bn7 bn254 7 2 $seed && d_circuit $R/bn8 bn254 8 2 $seed &&
  d_circuit $R/bls6 bls12-381 6 2 $seed || { echo "synth/setup failed"; exit 1; }
head -c 3000 $R/bn6/c.zkey > $R/truncated.zkey
head -c 4096 /dev/urandom > $R/garbage.zkey
cp $R/bn6/c.zkey $R/copy.zkey
ln -s /etc/passwd $R/link-out.zkey
ln -s /etc/passwd $R/link-out.wtns
MAXBODY=65536
d_start $R --max-body-bytes $MAXBODY --max-witnesses 8 --max-inline-bytes 4096 --connection-timeout-s 3 ||
  { echo "0 passed, 1 failed"; exit 1; }
PIDS+=($D_PID)

W0=$R/bn6/w.0.wtns
good_job() { # desc -> prints the job id; checks it completes with a valid proof
  d_req POST /v1/jobs "{\"key\": \"bn6\", \"witnesses\": [{\"path\": \"$W0\"}]}"
  if [ "$D_CODE" != 202 ]; then bad "$1: good job got HTTP $D_CODE: $(head -c 300 $D_BODY)"; echo 0; return; fi
  local id; id=$(json_get $D_BODY 'j["id"]')
  d_req GET "/v1/jobs/$id?wait=60"
  if [ "$(json_get $D_BODY 'j["state"]')" != done ]; then bad "$1: job $id not done: $(head -c 300 $D_BODY)"; echo $id; return; fi
  json_get $D_BODY 'j["partitions"][0]["proof"]' > $tmp/p.json
  json_get $D_BODY 'j["partitions"][0]["public"]' > $tmp/pub.json
  "$G16" verify $R/bn6/vk.json $tmp/pub.json $tmp/p.json >/dev/null 2>&1 && ok || bad "$1: job $id's proof does not verify"
  echo $id
}

# ---- keys ----
expect_http 201 ""               "register bn6"            POST /v1/keys "{\"id\": \"bn6\", \"path\": \"$R/bn6/c.zkey\"}"
first=$(good_job "before")
expect_http 400 invalid_json     "keys: malformed JSON"    POST /v1/keys "{\"id\": \"x\", \"path\": "
expect_http 400 invalid_json     "keys: not an object"     POST /v1/keys '[1, 2, 3]'
expect_http 400 invalid_arg      "keys: no path"           POST /v1/keys '{"id": "x"}'
expect_http 400 invalid_arg      "keys: path not a string" POST /v1/keys '{"id": "x", "path": 7}'
expect_http 400 invalid_arg      "keys: bad tier"          POST /v1/keys "{\"id\": \"x\", \"path\": \"$R/bn7/c.zkey\", \"tier\": \"warp\"}"
expect_http 403 forbidden_path   "keys: /etc/passwd"       POST /v1/keys '{"id": "x", "path": "/etc/passwd"}'
expect_http 403 forbidden_path   "keys: .. out of root"    POST /v1/keys "{\"id\": \"x\", \"path\": \"$R/../../../../../../../../etc/passwd\"}"
expect_http 403 forbidden_path   "keys: symlink out"       POST /v1/keys "{\"id\": \"x\", \"path\": \"$R/link-out.zkey\"}"
# A missing file outside the roots: 403 would not reveal whether it exists.
d_req POST /v1/keys '{"id": "x", "path": "/nonexistent-dir/x.zkey"}'
[ "$D_CODE" = 403 ] && ok || bad "a missing path outside the allowed roots: HTTP $D_CODE, wanted 403 (no existence oracle)"
expect_http 403 forbidden_path   "jobs: missing witness outside" POST /v1/jobs "{\"key\": \"bn6\", \"witnesses\": [{\"path\": \"/nonexistent-dir/w.wtns\"}]}"
expect_http 404 not_found        "keys: missing file"      POST /v1/keys "{\"id\": \"x\", \"path\": \"$R/nope.zkey\"}"
expect_http 422 ""               "keys: garbage file"      POST /v1/keys "{\"id\": \"x\", \"path\": \"$R/garbage.zkey\"}"
expect_http 422 ""               "keys: truncated zkey"    POST /v1/keys "{\"id\": \"x\", \"path\": \"$R/truncated.zkey\"}"
expect_http 409 conflict         "keys: id, other path"    POST /v1/keys "{\"id\": \"bn6\", \"path\": \"$R/copy.zkey\"}"
expect_http 404 not_found        "keys: delete unknown"    DELETE /v1/keys/no-such-key
d_req GET /v1/keys
[ "$(json_get $D_BODY 'sorted(k["id"] for k in j["keys"])')" = '["bn6"]' ] && ok ||
  bad "keys after the bad registrations: $(head -c 300 $D_BODY)"

# ---- jobs ----
J() { echo "{\"key\": \"bn6\", \"witnesses\": [$1]}"; }
expect_http 400 invalid_json     "jobs: malformed JSON"    POST /v1/jobs '{"key": "bn6", "witnesses": [{"path": '
expect_http 400 invalid_json     "jobs: empty body"        POST /v1/jobs ''
expect_http 400 invalid_json     "jobs: trailing garbage"  POST /v1/jobs "$(J "{\"path\": \"$W0\"}") xyz"
expect_http 400 invalid_arg      "jobs: key not a string"  POST /v1/jobs "{\"key\": 5, \"witnesses\": [{\"path\": \"$W0\"}]}"
expect_http 400 invalid_arg      "jobs: no witnesses"      POST /v1/jobs '{"key": "bn6"}'
expect_http 400 ""               "jobs: zero witnesses"    POST /v1/jobs "$(J "")"
expect_http 400 invalid_arg      "jobs: witness no path/data" POST /v1/jobs "$(J '{"file": "x"}')"
expect_http 400 invalid_arg      "jobs: bad priority"      POST /v1/jobs "{\"key\": \"bn6\", \"priority\": \"urgent\", \"witnesses\": [{\"path\": \"$W0\"}]}"
expect_http 404 unknown_key      "jobs: unknown key"       POST /v1/jobs "{\"key\": \"nokey\", \"witnesses\": [{\"path\": \"$W0\"}]}"
expect_http 404 not_found        "jobs: missing witness"   POST /v1/jobs "$(J "{\"path\": \"$R/nope.wtns\"}")"
expect_http 404 not_found        "jobs: 2nd witness missing" POST /v1/jobs "$(J "{\"path\": \"$W0\"}, {\"path\": \"$R/nope.wtns\"}")"
expect_http 403 forbidden_path   "jobs: /etc/passwd"       POST /v1/jobs "$(J '{"path": "/etc/passwd"}')"
expect_http 403 forbidden_path   "jobs: .. out of root"    POST /v1/jobs "$(J "{\"path\": \"$R/bn6/../../../../../../../../../etc/passwd\"}")"
expect_http 403 forbidden_path   "jobs: symlink out"       POST /v1/jobs "$(J "{\"path\": \"$R/link-out.wtns\"}")"
# a directory, a FIFO, a path through a file: documented codes, never "io"
mkdir -p $R/wdir; mkfifo $R/wfifo 2>/dev/null || true
expect_http 400 invalid_arg      "jobs: witness is a directory" POST /v1/jobs "$(J "{\"path\": \"$R/wdir\"}")"
[ -p $R/wfifo ] && expect_http 400 invalid_arg "jobs: witness is a FIFO" POST /v1/jobs "$(J "{\"path\": \"$R/wfifo\"}")"
expect_http 404 not_found        "jobs: path through a file" POST /v1/jobs "$(J "{\"path\": \"$W0/x.wtns\"}")"
expect_http 400 invalid_arg      "keys: a directory"       POST /v1/keys "{\"id\": \"x\", \"path\": \"$R/wdir\"}"
# A relative path must not resolve against g16d's working directory.
cp $W0 ./g16-badinput-$$.wtns 2>/dev/null
d_req POST /v1/jobs "$(J "{\"path\": \"g16-badinput-$$.wtns\"}")"
rm -f ./g16-badinput-$$.wtns
case $D_CODE in 400|403) ok;; *) bad "jobs: relative path: HTTP $D_CODE, wanted 400 or 403: $(head -c 300 $D_BODY)";; esac
expect_http 422 wrong_curve      "jobs: bls witness, bn key" POST /v1/jobs "$(J "{\"path\": \"$R/bls6/w.0.wtns\"}")"
expect_http 422 wrong_curve      "jobs: inline bls witness" POST /v1/jobs "$(J "{\"data\": \"$(base64 -w0 $R/bls6/w.1.wtns)\"}")"
expect_http 422 size_mismatch    "jobs: witness of a 2^7 circuit" POST /v1/jobs "$(J "{\"path\": \"$R/bn7/w.0.wtns\"}")"
expect_http 422 size_mismatch    "jobs: 2nd witness of a 2^7 circuit" POST /v1/jobs "$(J "{\"path\": \"$W0\"}, {\"path\": \"$R/bn7/w.1.wtns\"}")"
expect_http 400 ""               "jobs: inline not base64" POST /v1/jobs "$(J '{"data": "@@not base64!!"}')"
d_req POST /v1/jobs "$(J "{\"data\": \"$(printf 'hello, not a wtns' | base64 -w0)\"}")"
case $D_CODE in 400|422) ok;; *) bad "jobs: inline garbage: HTTP $D_CODE, wanted 400 or 422";; esac
expect_http 413 too_large        "jobs: inline over max_inline_bytes" POST /v1/jobs "$(J "{\"data\": \"$(base64 -w0 $R/bn8/w.0.wtns)\"}")"
w9=$(for i in 1 2 3 4 5 6 7 8 9; do printf '{"path": "%s"},' $W0; done); w9=${w9%,}
expect_http 413 too_large        "jobs: 9 witnesses, max 8" POST /v1/jobs "$(J "$w9")"
# A huge witness count: 200000 entries (a 1.4 MB body, over max_body_bytes).
python3 -c 'import json,sys; print(json.dumps({"key": "bn6", "witnesses": [{"path": sys.argv[1]}] * 200000}))' $W0 > $tmp/huge.json
expect_http 413 too_large        "jobs: 200000 witnesses"  POST /v1/jobs @$tmp/huge.json
# An oversized body of valid JSON: a long idempotency key.
python3 -c 'import json,sys; print(json.dumps({"key": "bn6", "idempotency_key": "x" * 2 * int(sys.argv[2]), "witnesses": [{"path": sys.argv[1]}]}))' $W0 $MAXBODY > $tmp/big.json
expect_http 413 too_large        "jobs: body over max_body_bytes" POST /v1/jobs @$tmp/big.json
expect_http 404 not_found        "GET unknown job"         GET /v1/jobs/987654
expect_http 404 not_found        "DELETE unknown job"      DELETE /v1/jobs/987654
d_req GET /v1/jobs/not-a-number
case $D_CODE in 400|404) ok;; *) bad "GET /v1/jobs/not-a-number: HTTP $D_CODE, wanted 400 or 404";; esac
expect_http 404 not_found        "unknown route"           GET /v1/nothing-here
expect_http 405 method_not_allowed "wrong method"          PUT /v1/keys '{}'
expect_http 405 method_not_allowed "wrong method on a job" POST /v1/jobs/$first '{}'
d_req GET "/v1/jobs/$first?wait=abc"
case $D_CODE in 200|400) ok;; *) bad "GET ?wait=abc: HTTP $D_CODE, wanted 400 or 200";; esac

# ---- broken connections: short bodies, idle and slow clients ----
python3 - "$D_URL" "$R/bn6/w.0.wtns" <<'PY'
import json, socket, sys, threading, time, urllib.request
url, w0 = sys.argv[1], sys.argv[2]
host, port = url.split("//")[1].split(":")
port = int(port)
fails = []
def bad(m):
    print("FAIL:", m, flush=True); fails.append(m)
def healthz_ok(limit=5.0):
    t = time.time()
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=limit) as f:
            return f.status == 200 and time.time() - t < limit
    except Exception as e:
        print("  healthz:", e)
        return False
def closed_within(s, limit):
    """Waits for the server to close s (EOF or reset). Returns seconds or None."""
    t = time.time()
    s.settimeout(limit)
    try:
        while True:
            d = s.recv(4096)
            if not d:
                return time.time() - t
    except (ConnectionResetError, BrokenPipeError):
        return time.time() - t
    except socket.timeout:
        return None
body = json.dumps({"key": "bn6", "witnesses": [{"path": w0}]}).encode()
head = (f"POST /v1/jobs HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body) + 1000}\r\n\r\n").encode()
# 1. Content-Length larger than what is sent, then the client stops sending:
#    the server times the connection out (connection_timeout_s = 3).
s = socket.create_connection((host, port)); s.sendall(head + body)
if not healthz_ok(): bad("healthz while a short body is pending")
t = closed_within(s, 20)
if t is None: bad("a connection with a short body was not closed within 20 s (connection_timeout_s 3)")
else: print(f"  short body: connection closed after {t:.1f} s")
s.close()
# 2. The same, and the client half-closes: EOF mid-body.
s = socket.create_connection((host, port)); s.sendall(head + body); s.shutdown(socket.SHUT_WR)
if closed_within(s, 20) is None: bad("EOF in the middle of a body: connection not closed within 20 s")
s.close()
# 3. Idle connections (connect, send nothing / half a request line).
idle = [socket.create_connection((host, port)) for _ in range(4)]
idle[1].sendall(b"GET /v1/sta"); idle[2].sendall(b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\n")
# 4. Slow clients trickling a request one byte every 0.5 s.
stop = threading.Event()
def trickle(i, out):
    s = socket.create_connection((host, port)); n = 0; t0 = time.time()
    msg = head + body
    try:
        while not stop.is_set() and n < len(msg):
            s.sendall(msg[n:n + 1]); n += 1; time.sleep(0.5)
        out[i] = ("cut", time.time() - t0) if n < len(msg) and not stop.is_set() else ("open", time.time() - t0)
    except OSError:
        out[i] = ("cut", time.time() - t0)
    s.close()
res = {}
th = [threading.Thread(target=trickle, args=(i, res)) for i in range(6)]
for x in th: x.start()
# Meanwhile others are served promptly.
time.sleep(1)
slow = 0
for i in range(10):
    if not healthz_ok(5): slow += 1
    time.sleep(0.3)
if slow: bad(f"{slow}/10 healthz requests failed or took over 5 s while 6 slow + 4 idle clients were connected")
for i, s in enumerate(idle):
    t = closed_within(s, 20)
    if t is None: bad(f"idle connection {i} not closed within 20 s (connection_timeout_s 3)")
    s.close()
time.sleep(6)  # give the server the time to cut the tricklers, if it does
stop.set()
for x in th: x.join()
cut = [v for v in res.values() if v[0] == "cut"]
print(f"  slow clients: {len(cut)}/6 cut by the server" + (f" (after {min(v[1] for v in cut):.1f}-{max(v[1] for v in cut):.1f} s)" if cut else " (an inactivity timeout does not cut a client that keeps trickling)"))
if not healthz_ok(): bad("healthz after the slow clients")
sys.exit(1 if fails else 0)
PY
[ $? = 0 ] && ok || bad "broken connections (see above)"

# Nothing above created a job, and the daemon still serves: the next good
# job gets the next id and completes.
last=$(good_job "after")
[ "$last" = $((first + 1)) ] && ok || bad "a bad request created a job: the good jobs are $first and $last, wanted consecutive ids"
# An idempotency key reused for another request: 409 conflict.
expect_http 202 ""               "idempotency key, first use" POST /v1/jobs "{\"key\": \"bn6\", \"idempotency_key\": \"k-1\", \"witnesses\": [{\"path\": \"$W0\"}]}"
expect_http 409 conflict         "idempotency key, other witness count" POST /v1/jobs "{\"key\": \"bn6\", \"idempotency_key\": \"k-1\", \"witnesses\": [{\"path\": \"$W0\"}, {\"path\": \"$W0\"}]}"
kill -0 ${PIDS[0]} 2>/dev/null && ok || bad "g16d died: $(tail -n 20 $D_LOG)"
d_req GET /metrics
[ "$D_CODE" = 200 ] && ok || bad "/metrics: HTTP $D_CODE"

# ---- a daemon with a token ----
mkdir -p $tmp/auth
d_start $tmp/auth --token s3cret-token-0123 || { bad "g16d with a token did not start"; echo "$pass passed, $fail failed"; exit 1; }
PIDS+=($D_PID)
expect_http 401 unauthorized     "no token"                GET /v1/status
expect_http 401 unauthorized     "no token, POST"          POST /v1/jobs '{"key": "x", "witnesses": [{"path": "/x"}]}'
expect_http 401 unauthorized     "no token, metrics"       GET /metrics
expect_http 401 unauthorized     "wrong token"             GET /v1/keys -H "Authorization: Bearer s3cret-token-0124"
expect_http 401 unauthorized     "token prefix"            GET /v1/keys -H "Authorization: Bearer s3cret-token-012"
expect_http 401 unauthorized     "token longer"            GET /v1/keys -H "Authorization: Bearer s3cret-token-01230"
expect_http 401 unauthorized     "not Bearer"              GET /v1/keys -H "Authorization: Basic czNjcmV0"
expect_http 200 ""               "healthz needs no token"  GET /healthz
expect_http 200 ""               "right token"             GET /v1/keys -H "Authorization: Bearer s3cret-token-0123"
D_TOKEN=s3cret-token-0123 expect_http 404 unknown_key "right token, then the normal checks" POST /v1/jobs '{"key": "x", "witnesses": [{"path": "/x"}]}'
d_stop || bad "token g16d exit status"

D_PID=${PIDS[0]}; D_LOG=$R/g16d.log
d_stop; rc=$?
[ $rc = 0 ] && ok || { bad "g16d exited $rc after SIGTERM"; tail -n 30 $D_LOG; }
echo "$pass passed, $fail failed"
[ $fail = 0 ]
