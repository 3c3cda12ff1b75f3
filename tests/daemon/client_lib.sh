# Helpers for the shell tests that drive a real g16d on loopback (sourced by
# tests/test_api_doc.sh, test_daemon_load.sh, test_daemon_badinput.sh).
# Env: G16_BIN (g16 CLI), G16D_BIN (g16d; unset in builds without the daemon).
G16=${G16_BIN:-build/g16}
G16D=${G16D_BIN:-}
# Absolute paths: some tests run the binaries from other directories.
[ -e "$G16" ] && G16=$(cd "$(dirname "$G16")" && pwd -P)/$(basename "$G16")
[ -n "$G16D" ] && [ -e "$G16D" ] && G16D=$(cd "$(dirname "$G16D")" && pwd -P)/$(basename "$G16D")
D_PID=
D_URL=
D_SOCK=
D_LOG=
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

# Exits 77 (ctest: skipped) when this build cannot run the daemon tests.
d_require() {
  if [ -z "$G16D" ] || [ ! -x "$G16D" ]; then echo "SKIP: no g16d (a build with -DG16_DAEMON=OFF)"; exit 77; fi
  for t in curl python3; do
    command -v $t >/dev/null || { echo "SKIP: $t missing"; exit 77; }
  done
}

d_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# d_start DIR [g16d options...]: starts g16d on a free loopback port (port
# 0; g16d writes the bound address to its ready file) with its SQLite store
# in DIR and DIR as the allowed root (a later --listen unix:PATH overrides
# the port: then D_SOCK is PATH and D_URL http://localhost). Sets D_PID,
# D_URL, D_SOCK, D_LOG. Returns 1
# (after printing the log) on failure.
d_start() {
  local dir=$1; shift
  local ready=$dir/g16d.ready t
  D_LOG=$dir/g16d.log
  rm -f "$ready"
  "$G16D" --listen 127.0.0.1:0 --ready-file "$ready" --store "sqlite:$dir/jobs.db" --allowed-roots "$dir" "$@" \
    >>"$D_LOG" 2>&1 &
  D_PID=$!
  for t in $(seq 1 600); do  # up to 60 s: ASan start-up on a busy machine
    if [ -s "$ready" ]; then
      D_URL=http://$(head -n 1 "$ready") D_SOCK=
      case $D_URL in http://unix:*) D_SOCK=${D_URL#http://unix:}; D_URL=http://localhost;; esac
      [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 ${D_SOCK:+--unix-socket "$D_SOCK"} "$D_URL/healthz")" = 200 ] &&
        return 0
    fi
    kill -0 $D_PID 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 $D_PID 2>/dev/null; then echo "g16d not ready in 60 s"; kill -9 $D_PID; fi
  wait $D_PID 2>/dev/null
  echo "g16d failed to start; its log:"; tail -n 30 "$D_LOG"
  D_PID=
  return 1
}

# d_stop: SIGTERM (graceful drain), SIGKILL after 30 s. Returns g16d's status.
d_stop() {
  [ -n "$D_PID" ] || return 0
  kill -TERM $D_PID 2>/dev/null
  local t
  for t in $(seq 1 300); do kill -0 $D_PID 2>/dev/null || break; sleep 0.1; done
  if kill -0 $D_PID 2>/dev/null; then echo "g16d ignored SIGTERM for 30 s: SIGKILL"; kill -9 $D_PID; fi
  wait $D_PID 2>/dev/null; local rc=$?
  D_PID=
  return $rc
}

# d_req METHOD PATH [BODY] [curl options...]: one request; sets D_CODE (HTTP
# status, 000 when none) and writes the body to $D_BODY. BODY (any argument
# not starting with "-") is sent as it is, "@file" reads a file. D_TOKEN,
# when set, is sent as the bearer token.
D_BODY=/dev/null
d_req() {
  local method=$1 path=$2; shift 2
  local args=(-s -o "$D_BODY" -w '%{http_code}' --max-time 120 -X "$method")
  [ -n "${D_TOKEN:-}" ] && args+=(-H "Authorization: Bearer $D_TOKEN")
  [ -n "${D_SOCK:-}" ] && args+=(--unix-socket "$D_SOCK")
  if [ $# -gt 0 ] && [ "${1:0:1}" != - ]; then args+=(-H 'Content-Type: application/json' -H 'Expect:' --data-binary "$1"); shift; fi
  D_CODE=$(curl "${args[@]}" "$@" "$D_URL$path")
}

# json_get FILE EXPR: a field of a JSON file (python expression on j), "" if absent.
json_get() {
  python3 - "$1" "$2" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
    v = eval(sys.argv[2], {"j": j})
    print(json.dumps(v) if isinstance(v, (dict, list)) else v)
except Exception:
    print("")
PY
}

# expect_http WANT_STATUS WANT_ERROR_CODE DESC METHOD PATH [BODY [curl opts]]:
# the status must match and, for a non-empty WANT_ERROR_CODE, the body must be
# {"error": {"code": WANT_ERROR_CODE, "message": <non-empty>}}.
expect_http() {
  local want=$1 code=$2 what=$3; shift 3
  d_req "$@"
  if [ "$D_CODE" != "$want" ]; then
    bad "$what: HTTP $D_CODE, wanted $want; body: $(head -c 300 "$D_BODY")"; return 1
  fi
  if [ -n "$code" ]; then
    local got msg
    got=$(json_get "$D_BODY" 'j["error"]["code"]')
    msg=$(json_get "$D_BODY" 'j["error"]["message"]')
    if [ "$got" != "$code" ] || [ -z "$msg" ]; then
      bad "$what: error code '$got' (message '$msg'), wanted '$code'; body: $(head -c 300 "$D_BODY")"; return 1
    fi
  fi
  ok
}

# d_circuit DIR CURVE LOG_N PARTITIONS SEED: a synthetic circuit, its insecure
# test key DIR/c.zkey + DIR/vk.json, and witnesses DIR/w.<i>.wtns.
d_circuit() {
  local dir=$1 curve=$2 logn=$3 parts=$4 seed=$5
  mkdir -p "$dir"
  "$G16" synth --curve $curve --log-n $logn --profile dense --partitions $parts --seed $seed \
    --out "$dir/c.r1cs" --witness "$dir/w.wtns" >/dev/null &&
  "$G16" setup --insecure-test-setup --curve $curve "$dir/c.r1cs" "$dir/c.zkey" --vk "$dir/vk.json" --seed $seed \
    >/dev/null 2>&1
}

# d_rss PID: "VmRSS VmHWM" in KiB.
d_rss() {
  awk '/^VmRSS:/ {r=$2} /^VmHWM:/ {h=$2} END {print r+0, h+0}' /proc/$1/status 2>/dev/null
}
