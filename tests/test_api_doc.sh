#!/usr/bin/env bash
# Runs the examples of docs/api.md against a real g16d on loopback: every
# ```sh block whose first line is "# test: STATUS [token]" or
# "# test: exit N", in the order of the page. /srv/g16 becomes a temporary
# directory (the daemon's allowed root) and http://127.0.0.1:8416 the test
# daemon's URL. A curl block passes when its last request got STATUS (blocks
# tagged "token" go to a second daemon started with --token s3cret-token-0123); other
# blocks pass when they exit with N. The first block of the page must not
# need the daemon (it makes the key and witnesses).
set -uo pipefail
. tests/daemon/client_lib.sh
d_require
DOC=${1:-docs/api.md}
tmp=$(mktemp -d)
tmp=$(cd "$tmp" && pwd -P)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT

# Split the page into blocks: $tmp/blocks/NNN.sh with the tag in NNN.tag.
mkdir -p $tmp/blocks
python3 - "$DOC" "$tmp/blocks" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
n = 0
for m in re.finditer(r"^```sh\n(.*?)^```", text, re.S | re.M):
    body = m.group(1)
    first = body.split("\n", 1)[0]
    t = re.fullmatch(r"# test: (exit \d+|\d{3}(?: token)?)", first.strip())
    if not t:
        continue
    n += 1
    line = text.count("\n", 0, m.start()) + 1
    open(f"{sys.argv[2]}/{n:03d}.sh", "w").write(body)
    open(f"{sys.argv[2]}/{n:03d}.tag", "w").write(f"{t.group(1)}\n{line}\n")
print(f"test_api_doc: {n} examples in {sys.argv[1]}")
PY
nblocks=$(ls $tmp/blocks/*.sh 2>/dev/null | wc -l)
[ "$nblocks" -ge 10 ] || bad "only $nblocks tested examples in $DOC"

mkdir -p $tmp/root $tmp/auth
d_start $tmp/root || { echo "0 passed, 1 failed"; exit 1; }
PIDS+=($D_PID); URL=$D_URL
d_start $tmp/auth --token s3cret-token-0123 || { echo "0 passed, 1 failed"; exit 1; }
PIDS+=($D_PID); AUTH_URL=$D_URL

# The prelude each block runs with: curl records the last status code; g16 is
# the binary under test, talking to the test daemon.
cat > $tmp/prelude.sh <<PRE
curl() { local c; c=\$(command curl -sS -o $tmp/body -w '%{http_code}' --max-time 120 "\$@"); local rc=\$?; echo "\$c" > $tmp/code; cat $tmp/body; echo; return \$rc; }
g16() { "$G16" "\$@"; }
export G16D_URL=$URL
PRE

for f in $tmp/blocks/*.sh; do
  tag=$(sed -n 1p ${f%.sh}.tag); line=$(sed -n 2p ${f%.sh}.tag)
  url=$URL; tok=
  case $tag in *token) url=$AUTH_URL; tok=s3cret-token-0123;; esac
  sed -e "s#http://127.0.0.1:8416#$url#g" -e "s#/srv/g16#$tmp/root#g" $f > $f.run
  rm -f $tmp/code $tmp/body
  (export G16D_TOKEN=$tok; . $tmp/prelude.sh; . $f.run) > $tmp/out 2>&1
  rc=$?
  case $tag in
    exit*) want=${tag#exit }
      if [ $rc = "$want" ]; then ok; else bad "$DOC:$line: exit $rc, wanted $want"; sed 's/^/  | /' $tmp/out | tail -n 20; fi ;;
    *) want=${tag%% *}; got=$(cat $tmp/code 2>/dev/null || echo none)
      if [ "$got" = "$want" ]; then ok; else bad "$DOC:$line: HTTP $got, wanted $want"; sed 's/^/  | /' $tmp/out | tail -n 20; fi
      # Every error reply is {"error": {"code", "message"}}.
      if [ "$want" -ge 400 ] 2>/dev/null; then
        c=$(json_get $tmp/body 'j["error"]["code"]'); m=$(json_get $tmp/body 'j["error"]["message"]')
        [ -n "$c" ] && [ -n "$m" ] && ok || bad "$DOC:$line: error body without code/message: $(head -c 200 $tmp/body)"
      fi ;;
  esac
done

# The proofs the page's client example fetched verify with snarkjs too.
SNARKJS=tests/js/node_modules/snarkjs/cli.js
if [ -f $SNARKJS ] && [ -f $tmp/root/proofs/proof-0.json ]; then
  node $SNARKJS groth16 verify $tmp/root/demo_vk.json $tmp/root/proofs/public-0.json $tmp/root/proofs/proof-0.json 2>&1 |
    grep -q "OK!" && ok || bad "snarkjs rejects the daemon's proof"
fi

kill -0 ${PIDS[0]} 2>/dev/null && ok || bad "g16d died; log: $(tail -n 20 $tmp/root/g16d.log)"
D_PID=${PIDS[1]}; d_stop
D_PID=${PIDS[0]}; d_stop; rc=$?
[ $rc = 0 ] && ok || { bad "g16d exited $rc after SIGTERM"; tail -n 20 $tmp/root/g16d.log; }
echo "$pass passed, $fail failed"
[ $fail = 0 ]
