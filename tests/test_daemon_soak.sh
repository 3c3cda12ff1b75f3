#!/usr/bin/env bash
# g16d soak: a steady load from 8 concurrent clients (curl, one idempotency
# key per job, retried until answered) on small circuits for a few minutes,
# while a chaos loop kills g16d with SIGKILL and restarts it, replaces its
# key files (atomically, with the same key's bytes, with another setup of
# the same circuit, briefly with another circuit), and fills and empties
# the store's disk (a small tmpfs, when `mount` works as root; else that
# part is skipped and said so). Then a quiet phase without chaos measures
# RSS. At the end: every accepted job is done or failed with a reason,
# none is duplicated (one job per idempotency key, at most one
# partition_done event per partition), every proof verifies (g16 verify,
# against the vk of one of the key's setups), RSS after warm-up and at the
# end are within a generous bound. Prints "N passed, M failed".
#
# G16_SOAK_S: seconds of chaos (default 75); G16_SOAK_SEED: the seed.
# A hard limit (G16_SOAK_HARD_S, default 330 s) on everything before the
# proofs' verification, and one of 60 s + 0.25 s per proof on it, stop the
# test as failed.
set -euo pipefail
G16_BIN=${G16_BIN:-build/g16}
G16D_BIN=${G16D_BIN:-}
[ -n "$G16D_BIN" ] && [ -x "$G16D_BIN" ] || { echo "SKIP: G16D_BIN not set (daemon not built)"; exit 77; }
[ -x "$G16_BIN" ] || { echo "SKIP: G16_BIN not built"; exit 77; }
for t in curl python3 base64 timeout; do
    command -v $t >/dev/null || { echo "SKIP: $t missing"; exit 77; }
done
SOAK_S=${G16_SOAK_S:-75}
HARD_S=${G16_SOAK_HARD_S:-330}
SEED=${G16_SOAK_SEED:-$(( $(date +%s) % 32768 ))}
RANDOM=$SEED
echo "soak: seed $SEED (G16_SOAK_SEED), ${SOAK_S}s of chaos, hard limit ${HARD_S}s"
T=$(mktemp -d /tmp/g16d-soak.XXXXXX)
MNT=$T/store
mkdir -p "$MNT" "$T/keys" "$T/c"
PASS=0
FAILS=0
G16D_PID=
CLIENTS=()
TMPFS=0
WATCHDOG=
ok() { PASS=$((PASS + 1)); }
bad() { FAILS=$((FAILS + 1)); echo "FAIL: $*"; }
finish() {
    local rc=$?
    [ -n "$WATCHDOG" ] && kill "$WATCHDOG" 2>/dev/null || true
    for p in "${CLIENTS[@]}"; do kill "$p" 2>/dev/null || true; done
    if [ -n "$G16D_PID" ] && kill -0 "$G16D_PID" 2>/dev/null; then kill -KILL "$G16D_PID" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    [ "$TMPFS" = 1 ] && umount "$MNT" 2>/dev/null || true
    if [ "${KEEP_TMP:-0}" = 1 ]; then echo "kept $T"; else rm -rf "$T"; fi
    exit $rc
}
trap finish EXIT
trap 'echo "FAIL: hard time limit of ${HARD_S}s reached"; echo "$PASS passed, $((FAILS + 1)) failed"; exit 1' USR1
( sleep "$HARD_S"; kill -USR1 $$ ) >/dev/null 2>&1 &  # no pipe of the caller kept open
WATCHDOG=$!

if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=48m tmpfs "$MNT" 2>/dev/null; then
    TMPFS=1
    echo "soak: the store is on a 48 MiB tmpfs that fills and empties"
else
    echo "soak: SKIPPING the full-disk part (mount of a tmpfs needs root and permission); the store is on $MNT"
fi

# keys: a (2^7 rows) with two setups, b (2^8 rows), o: another circuit than a
mk() { # dir logn parts
    mkdir -p "$1"
    "$G16_BIN" synth --curve bn254 --log-n "$2" --profile dense --out "$1/c.r1cs" --witness "$1/w.wtns" \
        --partitions "$3" >/dev/null || { echo "FAIL: synth"; exit 1; }
    "$G16_BIN" setup --insecure-test-setup --curve bn254 "$1/c.r1cs" "$1/c.zkey" --vk "$1/vk.json" >/dev/null 2>&1 ||
        { echo "FAIL: setup"; exit 1; }
}
mk "$T/a" 7 4
mk "$T/b" 8 4
mk "$T/o" 6 1
"$G16_BIN" setup --insecure-test-setup --curve bn254 "$T/a/c.r1cs" "$T/a/c2.zkey" --vk "$T/a/vk2.json" >/dev/null 2>&1
cp "$T/a/c.zkey" "$T/keys/a.zkey"
cp "$T/b/c.zkey" "$T/keys/b.zkey"
for k in a b; do for i in 0 1 2 3; do base64 -w0 "$T/$k/w.$i.wtns" >"$T/$k/w.$i.b64"; done; done
PORT=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
ADDR=http://127.0.0.1:$PORT
FLAGS=(--listen "127.0.0.1:$PORT" --store "sqlite:$MNT/jobs.db" --allowed-roots "$T" --workers 1 --queue-extra 1
    --heartbeat-s 0.5 --lease-s 5 --max-attempts 20 --drain-timeout-s 5)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=32
LIVES=0
start() {
    "$G16D_BIN" "${FLAGS[@]}" >>"$T/g16d.log" 2>&1 &
    G16D_PID=$!
    LIVES=$((LIVES + 1))
    for _ in $(seq 1 300); do
        curl -s -m 2 -o /dev/null "$ADDR/healthz" && return 0
        kill -0 "$G16D_PID" 2>/dev/null || { echo "FAIL: g16d exited at start-up"; tail -20 "$T/g16d.log"; exit 1; }
        sleep 0.1
    done
    echo "FAIL: g16d did not answer"
    exit 1
}
start
for k in a b; do
    code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -d "{\"id\":\"$k\",\"path\":\"$T/keys/$k.zkey\"}" "$ADDR/v1/keys")
    [ "$code" = 201 ] || { echo "FAIL: register $k: $code"; exit 1; }
done

# client I: posts jobs of 1-3 witnesses (paths, every 5th inline) until the
# file $T/stop exists; each job's idempotency key is retried while the
# answer is lost (000) or 503 (a restart, a stuck store), and given up on a
# 507 (the store is full: nothing was stored) or another 4xx. Accepted:
# "IDEM ID" lines in $T/c/I.ok.
client() {
    local i=$1 seq=0 r=$((RANDOM + $1 * 7919))
    while [ ! -e "$T/stop" ]; do
        seq=$((seq + 1))
        r=$(((r * 1103515245 + 12345) % 2147483648))
        local k=$([ $((r % 3)) = 0 ] && echo b || echo a) n=$((1 + r / 7 % 3)) idem="c$i-$seq" ws="" j
        for j in $(seq 0 $((n - 1))); do
            local w=$(((r / 11 + j) % 4))
            if [ $(((r / 13) % 5)) = 0 ]; then ws="$ws{\"data\":\"$(cat "$T/$k/w.$w.b64")\"},"; else ws="$ws{\"path\":\"$T/$k/w.$w.wtns\"},"; fi
        done
        printf '{"key":"%s","idempotency_key":"%s","witnesses":[%s]}' "$k" "$idem" "${ws%,}" >"$T/c/$i.body"
        local tries=0 code
        while :; do
            code=$(curl -s -m 20 -o "$T/c/$i.resp" -w '%{http_code}' -X POST --data-binary @"$T/c/$i.body" \
                "$ADDR/v1/jobs" 2>/dev/null) || code=000
            case $code in
            200 | 202)
                echo "$idem $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['id'])" "$T/c/$i.resp")" >>"$T/c/$i.ok"
                break
                ;;
            000 | 503)
                tries=$((tries + 1))
                [ $tries -lt 120 ] || { echo "$idem gave-up $code" >>"$T/c/$i.err"; break; }
                sleep 0.5
                ;;
            *)
                echo "$idem $code $(head -c 200 "$T/c/$i.resp")" >>"$T/c/$i.rej"
                break
                ;;
            esac
        done
        sleep "0.$((5 + r % 5))"
    done
}
for i in 1 2 3 4 5 6 7 8; do
    client $i &
    CLIENTS+=($!)
done

swap_key() { # src: replaces keys/a.zkey atomically (rename over it)
    cp "$1" "$T/keys/.a.tmp" && mv -f "$T/keys/.a.tmp" "$T/keys/a.zkey"
}
KILLS=0
FILLS=0
SWAPS=0
END=$((SECONDS + SOAK_S))
while [ $SECONDS -lt $END ]; do
    sleep "$((3 + RANDOM % 5)).$((RANDOM % 10))"
    kill -0 "$G16D_PID" 2>/dev/null || { bad "g16d died without being killed (life $LIVES)"; tail -20 "$T/g16d.log"; start; }
    case $((RANDOM % 6)) in
    0 | 1)
        kill -KILL "$G16D_PID"
        wait "$G16D_PID" 2>/dev/null || true
        KILLS=$((KILLS + 1))
        sleep 0.$((RANDOM % 10))
        start
        ;;
    2) swap_key "$T/a/c.zkey"; SWAPS=$((SWAPS + 1)) ;;  # the same key's bytes
    3) swap_key "$T/a/c2.zkey"; SWAPS=$((SWAPS + 1)) ;; # another setup of the same circuit
    4) # another circuit for a moment: refused, then back
        swap_key "$T/o/c.zkey"
        sleep 1.5
        swap_key "$T/a/c.zkey"
        SWAPS=$((SWAPS + 1))
        ;;
    5)
        if [ "$TMPFS" = 1 ]; then
            dd if=/dev/zero of="$MNT/fill" bs=256k >/dev/null 2>&1 || true
            sleep "$((1 + RANDOM % 3))"
            rm -f "$MNT/fill"
            FILLS=$((FILLS + 1))
        fi
        ;;
    esac
done
echo "soak: ${SECONDS}s: chaos done: $KILLS kills, $SWAPS key swaps, $FILLS disk fills, $LIVES lives"
# quiet phase: one clean restart (SIGTERM), steady load, RSS sampled
kill -TERM "$G16D_PID"
wait "$G16D_PID" 2>/dev/null || true
start
rss() { awk '/^VmRSS/ {print $2}' "/proc/$G16D_PID/status"; }
sleep 10
RSS0=$(rss)
sleep 25
RSS1=$(rss)
touch "$T/stop"
for p in "${CLIENTS[@]}"; do wait "$p" 2>/dev/null || true; done
CLIENTS=()
echo "soak: ${SECONDS}s: RSS after warm-up ${RSS0} kB, at the end ${RSS1} kB"
if [ "$RSS1" -le $((RSS0 + RSS0 / 2 + 65536)) ]; then ok; else bad "RSS grew from ${RSS0} kB to ${RSS1} kB"; fi

# every accepted job finishes (bounded)
cat "$T"/c/*.ok >"$T/accepted" 2>/dev/null || true
N_ACC=$(wc -l <"$T/accepted")
[ "$N_ACC" -ge 20 ] && ok || bad "only $N_ACC jobs accepted"
cat "$T"/c/*.err 2>/dev/null && bad "clients gave up on some jobs" || ok
wait_all() {
    python3 - "$ADDR" "$T/accepted" <<'EOF'
import json, sys, time, urllib.request
addr, acc = sys.argv[1], sys.argv[2]
ids = [int(l.split()[1]) for l in open(acc) if l.strip()]
end = time.time() + 120
left = set(ids)
while left and time.time() < end:
    for i in sorted(left):
        try:
            j = json.load(urllib.request.urlopen("%s/v1/jobs/%d?results=0" % (addr, i), timeout=30))
        except Exception:
            time.sleep(0.5)
            break
        if j["state"] in ("done", "failed", "cancelled"):
            left.discard(i)
    else:
        if left:
            time.sleep(1)
print(len(left))
EOF
}
LEFT=$(wait_all)
echo "soak: ${SECONDS}s: $N_ACC accepted jobs, $LEFT unfinished"
[ "$LEFT" = 0 ] && ok || bad "$LEFT accepted jobs not finished 120 s after the load stopped"
kill -TERM "$G16D_PID"
rc=0
wait "$G16D_PID" 2>/dev/null || rc=$?
G16D_PID=
# exit 0 after SIGTERM (a sanitizer build also reports leaks here)
[ "$rc" = 0 ] && ok || { bad "g16d exited with $rc after SIGTERM"; tail -30 "$T/g16d.log" | grep -v '^{' || true; }

# the store's view: states, reasons, duplicates; proofs to files
python3 - "$MNT/jobs.db" "$T/accepted" "$T/out" "$T" <<'EOF' >"$T/check.txt" || true
import json, os, sqlite3, sys
db, acc, out, T = sys.argv[1:5]
os.makedirs(out, exist_ok=True)
c = sqlite3.connect(db)
accepted = {}
dups = 0
for l in open(acc):
    idem, i = l.split()
    if idem in accepted and accepted[idem] != int(i):
        dups += 1
    accepted[idem] = int(i)
jobs = {r[0]: r for r in c.execute("SELECT id, idempotency_key, state, key_id FROM jobs")}
missing = [i for i in accepted.values() if i not in jobs]
unknown = [j for j, r in jobs.items() if r[1] not in accepted]
unfinished = [j for j in accepted.values() if j in jobs and jobs[j][2] not in (2, 3)]
noreason = 0
n_done = n_failed = 0
lst = open(os.path.join(out, "list"), "w")
for job, idx, state, err, proof, pub in c.execute(
        "SELECT job_id, idx, state, error, proof_json, public_json FROM partitions"):
    if state == 2:
        n_done += 1
        p = os.path.join(out, "%d_%d" % (job, idx))
        open(p + ".proof", "w").write(proof)
        open(p + ".pub", "w").write(pub)
        lst.write("%s %s\n" % (jobs[job][3], p))
    elif state == 3:
        n_failed += 1
        if not err:
            noreason += 1
print("dups", dups)
print("missing", len(missing))
print("unknown", len(unknown))
print("unfinished", len(unfinished))
print("noreason", noreason)
print("done", n_done)
print("failed", n_failed)
print("jobs", len(jobs))
EOF
echo "soak: ${SECONDS}s: store read"
cat "$T/check.txt"
get() { awk -v k="$1" '$1==k {print $2}' "$T/check.txt"; }
[ -n "$(get jobs)" ] || bad "could not read the store"
[ "$(get dups)" = 0 ] && ok || bad "an idempotency key gave two job ids"
[ "$(get missing)" = 0 ] && ok || bad "$(get missing) accepted jobs are not in the store"
[ "$(get unknown)" = 0 ] && ok || bad "$(get unknown) jobs in the store were never accepted (duplicates)"
[ "$(get unfinished)" = 0 ] && ok || bad "$(get unfinished) accepted jobs are not done or failed"
[ "$(get noreason)" = 0 ] && ok || bad "$(get noreason) failed partitions have no reason"
DUPEV=$(grep '"event":"partition_done"' "$T/g16d.log" | python3 -c "
import json,sys,collections
c=collections.Counter()
for l in sys.stdin:
    e=json.loads(l); c[(e['job'],e['partition'])]+=1
print(sum(1 for v in c.values() if v>1))")
[ "$DUPEV" = 0 ] && ok || bad "$DUPEV partitions have two partition_done events"
# every proof verifies against one of its key's setups, on every CPU at
# once; the verification has a limit of its own, in proportion to the
# proofs (a faster machine accepts more jobs in the same chaos)
NV=$(wc -l <"$T/out/list")
kill "$WATCHDOG" 2>/dev/null || true
HARD_V=$((60 + NV / 4))
trap 'echo "FAIL: verification time limit of ${HARD_V}s reached ($NV proofs)"; echo "$PASS passed, $((FAILS + 1)) failed"; exit 1' USR1
( sleep "$HARD_V"; kill -USR1 $$ ) >/dev/null 2>&1 &
WATCHDOG=$!
verify_one() { # key proof-path: exit 0 if one of the key's vks accepts it
    if [ "$1" = a ]; then set -- "$2" "$T/a/vk.json" "$T/a/vk2.json"; else set -- "$2" "$T/b/vk.json"; fi
    local p=$1 vk
    shift
    for vk; do "$G16_BIN" verify "$vk" "$p.pub" "$p.proof" >/dev/null 2>&1 && return 0; done
    echo "does not verify: $p"
}
export -f verify_one
export G16_BIN T
{ xargs -P "$(nproc)" -L 1 bash -c 'verify_one "$0" "$1"' <"$T/out/list" || true; } >"$T/verify.txt"
NBAD=$(grep -c "does not verify" "$T/verify.txt" || true)
head -5 "$T/verify.txt"
echo "soak: ${SECONDS}s: $NV proofs checked, $NBAD bad; $(get failed) partitions failed (with reasons)"
[ "$NV" -ge 20 ] && ok || bad "only $NV proofs"
[ "$NBAD" = 0 ] && ok || bad "$NBAD proofs do not verify"
grep -q '"event":"key_reloaded"' "$T/g16d.log" && ok || bad "no key_reloaded event after $SWAPS swaps"
echo "$PASS passed, $FAILS failed"
[ "$FAILS" = 0 ]
