#!/usr/bin/env bash
# g16 client against a real g16d: every subcommand, its output files and
# its exit codes (0 ok, 1 job failed/cancelled, 2 usage, 3 server/HTTP
# error, 4 wait timed out), the token from --token and $G16D_TOKEN.
set -uo pipefail
. tests/daemon/client_lib.sh
if ! "$G16" client --help >/dev/null 2>&1; then
  "$G16" client --help 2>&1 | grep -q "no daemon support" && { echo "SKIP: g16 built without the client"; exit 77; }
fi
d_require
seed=${G16_SEED:-$(date +%s)}
echo "test_daemon_client: seed $seed"
tmp=$(mktemp -d)
tmp=$(cd "$tmp" && pwd -P)
trap '[ -n "$D_PID" ] && kill -9 $D_PID 2>/dev/null; rm -rf "$tmp"' EXIT
C() { "$G16" client "$@"; }
expect_rc() { # want desc command...
  local want=$1 what=$2; shift 2
  "$@" >$tmp/out 2>$tmp/err; local rc=$?
  if [ $rc = "$want" ]; then ok; else bad "$what: exit $rc, wanted $want"; tail -n 5 $tmp/out $tmp/err; fi
}

# No daemon: usage errors (2) and an unreachable server (3).
port=$(d_free_port)
expect_rc 2 "no command"          C
expect_rc 2 "unknown command"     C --url http://127.0.0.1:$port frobnicate
expect_rc 2 "unknown option"      C --bogus status
expect_rc 2 "submit without witnesses" C --url http://127.0.0.1:$port submit k
expect_rc 2 "bad priority"        C --url http://127.0.0.1:$port submit k w.wtns --priority urgent
expect_rc 2 "wait: bad job id"    C --url http://127.0.0.1:$port wait 12x
expect_rc 2 "inline: missing file" C --url http://127.0.0.1:$port submit k $tmp/none.wtns --inline
expect_rc 3 "unreachable server"  C --url http://127.0.0.1:$port status
grep -q "127.0.0.1:$port" $tmp/err && ok || bad "unreachable: the message does not name the URL: $(cat $tmp/err)"

d_circuit $tmp/small bn254 6 3 $seed && d_circuit $tmp/big bn254 12 8 $seed || { echo "synth/setup failed"; exit 1; }
d_start $tmp --token s3cret-token-0123 --workers 1 || { echo "$pass passed, 1 failed"; exit 1; }
export G16D_URL=$D_URL

# The token: none -> 3 with the server's code, --token and $G16D_TOKEN work.
expect_rc 3 "no token"            C keys list
grep -q "401 unauthorized" $tmp/err && ok || bad "no token: message lacks '401 unauthorized': $(cat $tmp/err)"
expect_rc 0 "--token"             C --token s3cret-token-0123 keys list
export G16D_TOKEN=s3cret-token-0123
expect_rc 0 "G16D_TOKEN"          C keys list

# keys
expect_rc 0 "keys add"            C keys add small $tmp/small/c.zkey
grep -q "bn254" $tmp/out && ok || bad "keys add output: $(cat $tmp/out)"
(cd $tmp/big && "$G16" client keys add big c.zkey --tier host >$tmp/out 2>&1) && ok || bad "keys add with a relative path: $(cat $tmp/out)"
expect_rc 0 "keys list"           C keys list
[ "$(grep -c -E '^(small|big) ' $tmp/out)" = 2 ] && ok || bad "keys list: $(cat $tmp/out)"
grep -E '^big ' $tmp/out | grep -q host && ok || bad "keys list: big is not tier host"
expect_rc 3 "keys add: outside the roots" C keys add etc /etc/passwd
grep -q "403 forbidden_path" $tmp/err && ok || bad "keys add /etc/passwd: $(cat $tmp/err)"

# submit --wait --out: files for every partition, proofs verify.
expect_rc 0 "submit --wait"       C submit small $tmp/small/w.0.wtns $tmp/small/w.1.wtns $tmp/small/w.2.wtns --wait --out $tmp/o1/deep/er
id1=$(head -n 1 $tmp/out)
for i in 0 1 2; do
  "$G16" verify $tmp/small/vk.json $tmp/o1/deep/er/public-$i.json $tmp/o1/deep/er/proof-$i.json >/dev/null 2>&1 && ok ||
    bad "proof $i of submit --wait does not verify"
done
# Partition i has witness i: its public signals are those of a local proof.
"$G16" prove $tmp/small/c.zkey $tmp/small/w.2.wtns $tmp/lp.json $tmp/lpub.json >/dev/null 2>&1
[ "$(json_get $tmp/lpub.json j)" = "$(json_get $tmp/o1/deep/er/public-2.json j)" ] && ok || bad "public-2.json is not witness 2's"
SNARKJS=tests/js/node_modules/snarkjs/cli.js
if [ -f $SNARKJS ]; then
  node $SNARKJS groth16 verify $tmp/small/vk.json $tmp/o1/deep/er/public-0.json $tmp/o1/deep/er/proof-0.json 2>&1 | grep -q "OK!" && ok ||
    bad "snarkjs rejects proof-0.json"
fi
# inline, idempotency, wait and job on a finished job
expect_rc 0 "submit --inline"     C submit small $tmp/small/w.1.wtns --inline --idempotency-key idem-1 --priority critical
id2=$(cat $tmp/out)
expect_rc 0 "submit, same idempotency key" C submit small $tmp/small/w.1.wtns --inline --idempotency-key idem-1
[ "$(cat $tmp/out)" = "$id2" ] && ok || bad "idempotent resubmit: job $(cat $tmp/out), wanted $id2"
grep -q existing $tmp/err && ok || bad "idempotent resubmit not reported as existing: $(cat $tmp/err)"
expect_rc 0 "wait"                C wait $id2 --out $tmp/o2
"$G16" verify $tmp/small/vk.json $tmp/o2/public-0.json $tmp/o2/proof-0.json >/dev/null 2>&1 && ok || bad "inline proof does not verify"
expect_rc 0 "job"                 C job $id1
[ "$(json_get $tmp/out 'j["progress"]["done"]')" = 3 ] && ok || bad "job $id1: $(head -c 300 $tmp/out)"
expect_rc 0 "job --no-results"    C job $id1 --no-results
[ "$(json_get $tmp/out 'j["partitions"][0].get("proof")')" = None ] && ok || bad "job --no-results has proofs"
expect_rc 3 "job: unknown id"     C job 987654
grep -q "404 not_found" $tmp/err && ok || bad "job 987654: $(cat $tmp/err)"
expect_rc 3 "submit: unknown key" C submit nokey $tmp/small/w.0.wtns
grep -q "404 unknown_key" $tmp/err && ok || bad "unknown key: $(cat $tmp/err)"
expect_rc 3 "submit: wrong size"  C submit small $tmp/big/w.0.wtns
grep -q "422 size_mismatch" $tmp/err && ok || bad "wrong-size witness: $(cat $tmp/err)"

# Two long jobs (8 partitions of 2^12 each, one worker): waiting 1 s for
# the second -> 4; cancelled -> wait says 1; the first completes.
expect_rc 0 "submit big"          C submit big $tmp/big/w.{0..7}.wtns --priority low
idb=$(cat $tmp/out)
expect_rc 0 "submit big 2"        C submit big $tmp/big/w.{0..7}.wtns --priority low
idc=$(cat $tmp/out)
expect_rc 4 "wait --timeout 1"    C wait $idc --timeout 1   # behind 8 partitions of $idb
# A witness that breaks after admission (truncated while queued): the
# partition fails when it runs, wait exits 1 and prints its error.
cp $tmp/small/w.0.wtns $tmp/tofail.wtns
expect_rc 0 "submit to fail"      C submit small $tmp/tofail.wtns $tmp/small/w.1.wtns --priority low
idf=$(cat $tmp/out)
head -c 100 $tmp/small/w.0.wtns > $tmp/tofail.wtns
expect_rc 0 "cancel"              C cancel $idc
grep -q cancelled $tmp/out && ok || bad "cancel output: $(cat $tmp/out)"
expect_rc 1 "wait on a cancelled job" C wait $idc
expect_rc 0 "wait big"            C wait $idb --timeout 300 --out $tmp/ob
"$G16" verify $tmp/big/vk.json $tmp/ob/public-7.json $tmp/ob/proof-7.json >/dev/null 2>&1 && ok || bad "big proof 7 does not verify"
grep -q "8/8 done" $tmp/err && ok || bad "wait: no final progress line '8/8 done': $(cat $tmp/err)"
expect_rc 1 "wait on a failed job" C wait $idf --timeout 300 --out $tmp/of
grep -q "partition 0 failed" $tmp/err && ok || bad "wait on a failed job: no partition error: $(cat $tmp/err)"
[ -f $tmp/of/proof-1.json ] && [ ! -f $tmp/of/proof-0.json ] && ok || bad "failed job: proof-1.json missing or proof-0.json present"
expect_rc 0 "keys rm"             C keys rm big
expect_rc 3 "keys rm again"       C keys rm big

# status, metrics, health
expect_rc 0 "status"              C status
[ -n "$(json_get $tmp/out 'j["store"]')" ] && ok || bad "status JSON: $(head -c 300 $tmp/out)"
expect_rc 0 "metrics"             C metrics
grep -q '^g16d_up 1' $tmp/out && ok || bad "metrics lack g16d_up 1"
expect_rc 0 "health"              C health

d_stop; rc=$?
[ $rc = 0 ] && ok || { bad "g16d exited $rc after SIGTERM"; tail -n 30 $D_LOG; }

# Over a unix socket (--socket), without a token.
unset G16D_TOKEN G16D_URL
mkdir -p $tmp/u
d_start $tmp/u --listen unix:$tmp/u/g16d.sock || { echo "$pass passed, $((fail+1)) failed"; exit 1; }
cp $tmp/small/c.zkey $tmp/small/w.0.wtns $tmp/u/
expect_rc 0 "socket: health"      C --socket $tmp/u/g16d.sock health
expect_rc 0 "socket: keys add"    C --socket $tmp/u/g16d.sock keys add small $tmp/u/c.zkey
expect_rc 0 "socket: submit --wait" C --socket $tmp/u/g16d.sock submit small $tmp/u/w.0.wtns --wait --out $tmp/u/o
"$G16" verify $tmp/small/vk.json $tmp/u/o/public-0.json $tmp/u/o/proof-0.json >/dev/null 2>&1 && ok ||
  bad "proof over the unix socket does not verify"
d_stop || bad "socket g16d exit status"

# wait rides out a daemon restart: kill -9 in mid-job, restart on the same
# store and socket; the accepted job completes and wait exits 0.
mkdir -p $tmp/r
cp $tmp/big/c.zkey $tmp/big/vk.json $tmp/big/w.*.wtns $tmp/r/
RARGS=(--listen unix:$tmp/r/g16d.sock --key big:$tmp/r/c.zkey --workers 1)
d_start $tmp/r "${RARGS[@]}" || { echo "$pass passed, $((fail+1)) failed"; exit 1; }
# 32 partitions (the 8 witnesses 4 times) so that the job outlasts the
# polling below even on a fast machine; the kill comes once the first
# partition is done and before the last one is.
expect_rc 0 "restart: submit"     C --socket $tmp/r/g16d.sock submit big $tmp/r/w.{0..7}.wtns \
    $tmp/r/w.{0..7}.wtns $tmp/r/w.{0..7}.wtns $tmp/r/w.{0..7}.wtns
idr=$(cat $tmp/out)
C --socket $tmp/r/g16d.sock wait $idr --out $tmp/r/o >$tmp/r/wait.out 2>$tmp/r/wait.err &
wpid=$!
done_now=0
for _ in $(seq 600); do
    done_now=$(curl -s --unix-socket $tmp/r/g16d.sock "http://g16d/v1/jobs/$idr?results=0" |
               python3 -c 'import json,sys; print(json.load(sys.stdin)["progress"]["done"])' 2>/dev/null || echo 0)
    [ "${done_now:-0}" -ge 1 ] && break
    sleep 0.05
done
kill -9 $D_PID; wait $D_PID 2>/dev/null; D_PID=
[ "${done_now:-0}" -ge 1 ] && [ "$done_now" -lt 32 ] && ok ||
  bad "restart: the kill did not come mid-job ($done_now of 32 partitions done)"
sleep 2
d_start $tmp/r "${RARGS[@]}" || { echo "$pass passed, $((fail+1)) failed"; exit 1; }
wait $wpid; rc=$?
[ $rc = 0 ] && ok || { bad "wait across a restart: exit $rc"; cat $tmp/r/wait.err; }
grep -q "retrying" $tmp/r/wait.err && ok || bad "wait did not report the lost server: $(cat $tmp/r/wait.err)"
for i in 0 7; do
  "$G16" verify $tmp/r/vk.json $tmp/r/o/public-$i.json $tmp/r/o/proof-$i.json >/dev/null 2>&1 && ok ||
    bad "proof $i after the restart does not verify"
done
# submit --retry while the daemon is down: it gets through once it is back.
kill -9 $D_PID; wait $D_PID 2>/dev/null; D_PID=
C --socket $tmp/r/g16d.sock submit big $tmp/r/w.0.wtns --idempotency-key down-1 --retry 60 --wait --out $tmp/r/o2 \
  >$tmp/r/sub.out 2>$tmp/r/sub.err &
spid=$!
sleep 2
d_start $tmp/r "${RARGS[@]}" || { echo "$pass passed, $((fail+1)) failed"; exit 1; }
wait $spid; rc=$?
[ $rc = 0 ] && ok || { bad "submit --retry across a restart: exit $rc"; cat $tmp/r/sub.err; }
"$G16" verify $tmp/r/vk.json $tmp/r/o2/public-0.json $tmp/r/o2/proof-0.json >/dev/null 2>&1 && ok ||
  bad "proof of the retried submit does not verify"
d_stop || bad "restarted g16d exit status"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
