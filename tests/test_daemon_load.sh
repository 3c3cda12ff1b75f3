#!/usr/bin/env bash
# Load: G16_LOAD_JOBS (default 500) small jobs (synthetic 2^6..2^8 circuits,
# both curves, 1-2 witnesses each, by path or inline, mixed priorities)
# from G16_LOAD_CLIENTS (default 16) concurrent clients (python threads,
# urllib) against one g16d. Checks: every job is accepted once and
# completes; every partition is done on its first attempt with the public
# signals of its own witness; every proof verifies (g16 verify; one per key
# with snarkjs); job ids are unique and idempotent resubmits return the
# same job; g16d's peak RSS (VmHWM) is reported and the second half of the
# run does not raise it by more than G16_LOAD_RSS_GROWTH_MB (default 16 MiB)
# or 25 %, whichever is larger (measured: +0.4 MiB release, +4-6 MiB ASan).
set -uo pipefail
. tests/daemon/client_lib.sh
d_require
JOBS=${G16_LOAD_JOBS:-500}
CLIENTS=${G16_LOAD_CLIENTS:-16}
GROWTH_MB=${G16_LOAD_RSS_GROWTH_MB:-16}
seed=${G16_SEED:-$(date +%s)}
echo "test_daemon_load: seed $seed, $JOBS jobs, $CLIENTS clients"
tmp=$(mktemp -d)
tmp=$(cd "$tmp" && pwd -P)
trap '[ -n "$D_PID" ] && kill -9 $D_PID 2>/dev/null; rm -rf "$tmp"' EXIT

# Keys: name curve log_n witnesses.
KEYS="bn6 bn254 6 6
bn7 bn254 7 4
bn8 bn254 8 4
bls6 bls12-381 6 4"
echo "$KEYS" > $tmp/keys.txt
while read -r name curve logn nw; do
  d_circuit $tmp/$name $curve $logn $nw $seed || { bad "synth/setup $name"; echo "$pass passed, $fail failed"; exit 1; }
  # The expected public signals of each witness, from a local g16 prove.
  for ((i = 0; i < nw; i++)); do
    "$G16" prove $tmp/$name/c.zkey $tmp/$name/w.$i.wtns $tmp/$name/p.$i.json $tmp/$name/pub.$i.json >/dev/null ||
      bad "local prove $name $i"
  done
done <<< "$KEYS"

# A small ASan quarantine, so that RSS measures the daemon, not ASan.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
d_start $tmp --max-witnesses 16 || { echo "$pass passed, 1 failed"; exit 1; }
D_BODY=$tmp/resp
while read -r name curve logn nw; do
  expect_http 201 "" "register $name" POST /v1/keys "{\"id\": \"$name\", \"path\": \"$tmp/$name/c.zkey\"}"
done <<< "$KEYS"

python3 - "$D_URL" "$D_PID" "$tmp" "$JOBS" "$CLIENTS" "$seed" "$GROWTH_MB" "$G16" <<'PY' 2>&1
import base64, json, os, random, subprocess, sys, threading, time, urllib.error, urllib.request
from concurrent.futures import ThreadPoolExecutor
url, pid, tmp, njobs, nclients, seed, growth_mb, g16 = sys.argv[1:9]
pid, njobs, nclients, seed, growth_mb = int(pid), int(njobs), int(nclients), int(seed), int(growth_mb)
keys = {}
for line in open(f"{tmp}/keys.txt"):
    name, curve, logn, nw = line.split()
    keys[name] = [json.load(open(f"{tmp}/{name}/pub.{i}.json")) for i in range(int(nw))]
names = sorted(keys)
errors = []
lock = threading.Lock()
def err(msg):
    with lock:
        if len(errors) < 30:
            print("FAIL:", msg, flush=True)
        errors.append(msg)

def req(method, path, body=None, timeout=120):
    data = json.dumps(body).encode() if body is not None else None
    r = urllib.request.Request(url + path, data=data, method=method,
                               headers={"Content-Type": "application/json"} if data else {})
    for attempt in range(5):
        try:
            with urllib.request.urlopen(r, timeout=timeout) as f:
                return f.status, json.loads(f.read())
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors="replace")
        except (ConnectionError, urllib.error.URLError) as e:
            # A refused connection under load is not a lost job: retry
            # (every POST carries an idempotency key, so a retry is safe).
            if attempt == 4:
                raise
            time.sleep(0.2 * (attempt + 1))

# The plan, fixed by the seed: job j -> key, witnesses, priority, inline.
rng = random.Random(seed)
plan = []
for j in range(njobs):
    k = rng.choice(names)
    ws = [rng.randrange(len(keys[k])) for _ in range(rng.choice((1, 1, 2)))]
    plan.append((k, ws, rng.choice(("low", "normal", "normal", "high", "critical")), rng.random() < 0.25,
                 rng.random() < 0.05))
inline_cache = {}
def witness(k, i, inline):
    p = f"{tmp}/{k}/w.{i}.wtns"
    if not inline:
        return {"path": p}
    if p not in inline_cache:
        inline_cache[p] = base64.b64encode(open(p, "rb").read()).decode()
    return {"data": inline_cache[p]}

results = [None] * njobs
done_count = [0]
next_job = [0]
def client(c):
    while True:
        with lock:
            j = next_job[0]
            next_job[0] += 1
        if j >= njobs:
            return
        k, ws, prio, inline, resubmit = plan[j]
        body = {"key": k, "priority": prio, "idempotency_key": f"load-{seed}-{j}",
                "witnesses": [witness(k, i, inline) for i in ws]}
        st, r = req("POST", "/v1/jobs", body)
        if st != 202 or not isinstance(r, dict) or r.get("existing") or r.get("partitions") != len(ws):
            err(f"job {j}: submit got {st} {str(r)[:200]}")
            continue
        jid = r["id"]
        t0 = time.time()
        while True:
            st, v = req("GET", f"/v1/jobs/{jid}?wait=30&results=0", timeout=90)
            if st != 200:
                err(f"job {j} (id {jid}): poll got {st} {str(v)[:200]}")
                break
            if v["state"] in ("done", "failed", "cancelled"):
                break
            if time.time() - t0 > 600:
                err(f"job {j} (id {jid}): not finished after 600 s: {v['state']}")
                break
        st, v = req("GET", f"/v1/jobs/{jid}")
        if st != 200:
            err(f"job {j} (id {jid}): get got {st}")
            continue
        if resubmit:  # an idempotent retry returns the same job, not a new one
            st, r2 = req("POST", "/v1/jobs", body)
            if st != 200 or r2.get("id") != jid or r2.get("existing") is not True:
                err(f"job {j}: resubmit got {st} {str(r2)[:200]}, wanted 200 with id {jid} existing")
        results[j] = (jid, v)
        with lock:
            done_count[0] += 1

# RSS sampler: (jobs finished, VmRSS, VmHWM) every 0.1 s.
samples = []
stop = threading.Event()
def sampler():
    while not stop.is_set():
        try:
            st = dict(l.split(":", 1) for l in open(f"/proc/{pid}/status"))
            samples.append((done_count[0], int(st["VmRSS"].split()[0]), int(st["VmHWM"].split()[0])))
        except (OSError, KeyError, ValueError):
            pass
        stop.wait(0.1)
ts = threading.Thread(target=sampler); ts.start()
t0 = time.time()
with ThreadPoolExecutor(nclients) as ex:
    list(ex.map(client, range(nclients)))
wall = time.time() - t0
stop.set(); ts.join()

# Every job: accepted once, done, each partition done on its first attempt
# with its own witness's public signals.
ids = [r[0] for r in results if r]
if len(set(ids)) != len(ids):
    err(f"duplicate job ids: {len(ids)} jobs, {len(set(ids))} distinct")
nparts = 0
todo = []
for j, r in enumerate(results):
    if not r:
        err(f"job {j}: no result"); continue
    jid, v = r
    k, ws, prio, inline, _ = plan[j]
    if v.get("id") != jid or v.get("key") != k or v.get("priority") != prio:
        err(f"job {j} (id {jid}): id/key/priority {v.get('id')} {v.get('key')} {v.get('priority')}, wanted {jid} {k} {prio}")
    if v["state"] != "done":
        err(f"job {j} (id {jid}): state {v['state']}: {json.dumps(v['partitions'])[:300]}")
    parts = v["partitions"]
    if [p["index"] for p in parts] != list(range(len(ws))):
        err(f"job {j} (id {jid}): partition indices {[p['index'] for p in parts]}, wanted 0..{len(ws) - 1}")
        continue
    pr = v.get("progress", {})
    if (pr.get("done"), pr.get("failed"), pr.get("total")) != (len(ws), 0, len(ws)):
        err(f"job {j} (id {jid}): progress {pr}")
    for p, wi in zip(parts, ws):
        nparts += 1
        if p["state"] != "done" or p.get("attempts") != 1:
            err(f"job {j} (id {jid}) partition {p['index']}: state {p['state']}, attempts {p.get('attempts')}, error {p.get('error')}")
            continue
        if p.get("public") != keys[k][wi]:
            err(f"job {j} (id {jid}) partition {p['index']}: public signals are not those of witness {k}/w.{wi}")
        d = f"{tmp}/proofs/{jid}"
        os.makedirs(d, exist_ok=True)
        pf, pb = f"{d}/proof_{p['index']}.json", f"{d}/public_{p['index']}.json"
        json.dump(p["proof"], open(pf, "w")); json.dump(p["public"], open(pb, "w"))
        todo.append((k, pf, pb))

# No job beyond the ones we made (idempotent resubmits created none).
st, _ = req("GET", f"/v1/jobs/{max(ids) + 1 if ids else 1}")
if st != 404:
    err(f"job id {max(ids) + 1 if ids else 1} exists: {st} (an extra job was created)")

def verify(t):
    k, pf, pb = t
    r = subprocess.run([g16, "verify", f"{tmp}/{k}/vk.json", pb, pf], capture_output=True, text=True)
    return t, r.returncode, r.stdout + r.stderr
tv = time.time()
with ThreadPoolExecutor(os.cpu_count() or 2) as ex:
    for t, rc, out in ex.map(verify, todo):
        if rc != 0:
            err(f"g16 verify {t[1]}: exit {rc}: {out.strip()[:200]}")
tv = time.time() - tv
snark = {}
for k, pf, pb in todo:
    snark.setdefault(k, (pf, pb))
with open(f"{tmp}/snarkjs.txt", "w") as f:
    for k, (pf, pb) in snark.items():
        f.write(f"{tmp}/{k}/vk.json {pb} {pf}\n")

# Memory: VmHWM at half the jobs and at the end.
half = [s for s in samples if s[0] >= njobs // 2]
if samples and half:
    hwm_half, hwm_end = half[0][2], samples[-1][2]
    limit = max(growth_mb * 1024, hwm_half // 4)
    print(f"g16d RSS: peak (VmHWM) {hwm_end / 1024:.1f} MiB; at {half[0][0]} jobs {hwm_half / 1024:.1f} MiB, "
          f"at the end {hwm_end / 1024:.1f} MiB (growth {(hwm_end - hwm_half) / 1024:.1f} MiB, limit {limit / 1024:.0f} MiB); "
          f"VmRSS now {samples[-1][1] / 1024:.1f} MiB")
    if hwm_end - hwm_half > limit:
        err(f"g16d peak RSS grew by {(hwm_end - hwm_half) / 1024:.1f} MiB in the second half of the run")
else:
    err("no RSS samples of g16d")
print(f"load: {len(ids)} jobs, {nparts} proofs from {nclients} clients in {wall:.1f} s "
      f"({len(ids) / wall:.1f} jobs/s, {nparts / wall:.1f} proofs/s); {len(todo)} proofs checked with g16 verify in {tv:.1f} s")
open(f"{tmp}/nparts.txt", "w").write(f"{nparts}\n")
print(f"RESULT errors={len(errors)}")
sys.exit(1 if errors else 0)
PY
[ $? = 0 ] && ok || bad "load run (see above)"

# One proof per key with snarkjs.
SNARKJS=tests/js/node_modules/snarkjs/cli.js
if [ -f $SNARKJS ] && [ -f $tmp/snarkjs.txt ]; then
  while read -r vk pub proof; do
    node $SNARKJS groth16 verify $vk $pub $proof 2>&1 | grep -q "OK!" && ok || bad "snarkjs rejects $proof"
  done < $tmp/snarkjs.txt
else echo "note: snarkjs not installed (npm ci --prefix tests/js): skipping the snarkjs check"; fi

# The daemon's own counters agree: as many jobs done as submitted, and every
# partition proved exactly once (no partition ran twice).
d_req GET /metrics
nparts=$(cat $tmp/nparts.txt 2>/dev/null)
metric() { awk -v re="$1" '$0 ~ re {s += $NF; n++} END {if (n) printf "%d", s}' $D_BODY; }
m=$(metric '^g16d_jobs[{].*state="done"')
[ -z "$m" ] || { [ "$m" = "$JOBS" ] && ok || bad "g16d_jobs{state=done} is $m, wanted $JOBS"; }
m=$(metric '^g16d_partitions[{].*state="done"')
[ -z "$m" ] || { [ "$m" = "$nparts" ] && ok || bad "g16d_partitions{state=done} sum to $m, wanted $nparts"; }
m=$(metric '^g16_partitions_proved_total')
[ -z "$m" ] || { [ "$m" = "$nparts" ] && ok || bad "g16_partitions_proved_total is $m, wanted $nparts (a partition proved twice?)"; }
echo "metrics: jobs done $(metric '^g16d_jobs[{].*state="done"'), partitions done $(metric '^g16d_partitions[{].*state="done"'), proved $(metric '^g16_partitions_proved_total') (expected $JOBS, $nparts, $nparts)"
kill -0 $D_PID 2>/dev/null && ok || bad "g16d died: $(tail -n 20 $D_LOG)"
d_stop; rc=$?
[ $rc = 0 ] && ok || { bad "g16d exited $rc after SIGTERM"; tail -n 30 $D_LOG; }
echo "$pass passed, $fail failed"
[ $fail = 0 ]
