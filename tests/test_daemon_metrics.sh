#!/usr/bin/env bash
# g16d's operator surface: /metrics by Prometheus's conventions (promtool
# check metrics on a live daemon; base units, _total only on counters,
# build_info, no GPU series on a CPU-only daemon), the shipped alert rules
# (promtool check rules, and promtool test rules on synthetic series:
# tests/prometheus/alerts_test.yml) and Grafana dashboard (every metric they name is
# served), the timeline (JSON spans and Chrome trace event JSON: required
# fields, monotone timestamps per lane, one device span per partition),
# g16 prove --batch --timeline (the same trace), /v1/jobs's filters and
# pagination, and the static routes' auth.
set -euo pipefail
. "$(dirname "$0")/daemon/lib.sh"
command -v promtool >/dev/null || { echo "SKIP: promtool missing (Debian package prometheus)"; exit 77; }
SRC=$(cd "$(dirname "$0")/.." && pwd)

promtool check rules "$SRC/examples/prometheus/alerts.yml" >"$T/rules.out" 2>&1 ||
    fail "promtool check rules: $(cat "$T/rules.out")"
promtool test rules "$SRC/tests/prometheus/alerts_test.yml" >"$T/rules.out" 2>&1 ||
    fail "promtool test rules: $(cat "$T/rules.out")"

# validate_trace FILE PARTS: Chrome trace event JSON of PARTS partitions.
validate_trace() {
    python3 - "$1" "$2" <<'EOF' || fail "trace $1 is not valid"
import json, sys
d = json.load(open(sys.argv[1]))
parts = int(sys.argv[2])
ev = d["traceEvents"]
assert isinstance(ev, list) and ev, "no events"
last, lanes, named, dev = {}, set(), set(), 0
for e in ev:
    for k in ("name", "ph", "pid", "tid"):
        assert k in e, "event without %s: %r" % (k, e)
    assert isinstance(e["pid"], int) and isinstance(e["tid"], int), e
    if e["ph"] == "M":
        assert e["name"] == "thread_name" and isinstance(e["args"]["name"], str), e
        named.add((e["pid"], e["tid"]))
        continue
    assert e["ph"] == "X", "not a complete event: %r" % e
    assert isinstance(e["ts"], (int, float)) and isinstance(e["dur"], (int, float)) and e["dur"] >= 0, e
    assert isinstance(e["args"]["job"], int) and isinstance(e["args"]["partition"], int), e
    lane = (e["pid"], e["tid"])
    assert e["ts"] >= last.get(lane, -1), "lane %r: ts goes back at %r" % (lane, e)
    last[lane] = e["ts"]
    lanes.add(lane)
    dev += e["name"] == "device"
assert lanes <= named, "lanes without a thread_name: %r" % (lanes - named)
assert dev == parts, "%d device events for %d partitions" % (dev, parts)
EOF
}

make_key "$T/k" 8 3
make_key "$T/k2" 7 2
TOKEN=metrics-token-0123456789
start_g16d --token "$TOKEN" --workers 2 --heartbeat-s 0.5

# static routes: no token needed (the dashboard's bundle, docs/dashboard.md)
SAVED=$TOKEN
TOKEN= expect GET / - 200
TOKEN= expect GET /ui/app.js - 200
TOKEN= expect GET /ui/no-such-file.js - 404 not_found
TOKEN= expect POST / '{}' 405 method_not_allowed
TOKEN= expect GET /v1/jobs - 401 unauthorized
TOKEN= expect GET /v1/timeline - 401 unauthorized
TOKEN=$SAVED

t0=$(python3 -c 'import time; print(time.time())')
expect POST /v1/keys "{\"id\":\"k\",\"path\":\"$T/k/c.zkey\"}" 201
expect POST /v1/keys "{\"id\":\"k2\",\"path\":\"$T/k2/c.zkey\"}" 201
W3="{\"path\":\"$T/k/w.0.wtns\"},{\"path\":\"$T/k/w.1.wtns\"},{\"path\":\"$T/k/w.2.wtns\"}"
W2="{\"path\":\"$T/k2/w.0.wtns\"},{\"path\":\"$T/k2/w.1.wtns\"}"
IDS=()
for spec in "k high $W3" "k2 normal $W2" "k low $W3" "k2 high $W2" "k normal $W3"; do
    set -- $spec
    expect POST /v1/jobs "{\"key\":\"$1\",\"priority\":\"$2\",\"witnesses\":[$3]}" 202
    IDS+=("$(jq_ "$T/resp" "d['id']")")
done
for id in "${IDS[@]}"; do wait_job "$id" 60 >/dev/null; done

# ---- /v1/jobs ---------------------------------------------------------------
list() { req GET "/v1/jobs$1" >"$T/list.json"; [ "$(cat "$T/status")" = 200 ] || fail "GET /v1/jobs$1: $(cat "$T/status") $(cat "$T/resp")"; }
ids_of() { jq_ "$T/list.json" "' '.join(str(j['id']) for j in d['jobs'])"; }
list ""
[ "$(ids_of)" = "${IDS[*]}" ] || fail "listing: $(ids_of), expected ${IDS[*]}"
[ "$(jq_ "$T/list.json" "d['next_after']")" = None ] || fail "next_after on the last page"
python3 - "$T/list.json" "$t0" <<'EOF' || fail "job summaries: $(cat "$T/list.json")"
import json, sys, time
d, t0 = json.load(open(sys.argv[1])), float(sys.argv[2])
for j in d["jobs"]:
    assert set(j) >= {"id", "key", "priority", "state", "partitions", "proved", "failed", "submitted_at",
                      "started_at", "finished_at"}, j
    assert j["state"] == "done" and j["proved"] == j["partitions"] == (3 if j["key"] == "k" else 2), j
    assert j["failed"] == 0 and t0 - 1 <= j["submitted_at"] <= j["finished_at"] <= time.time() + 1, j
    # started_at: the first claim of one of its partitions
    assert isinstance(j["started_at"], float), j
    assert j["submitted_at"] <= j["started_at"] <= j["finished_at"], j
EOF
# the detail view: created <= started <= finished (whole seconds)
expect GET "/v1/jobs/${IDS[0]}?results=0" - 200
python3 - "$T/resp" <<'EOF' || fail "job detail times: $(cat "$T/resp")"
import json, sys, time
d = json.load(open(sys.argv[1]))
assert isinstance(d["started"], int) and d["created"] <= d["started"] <= d["finished"] <= time.time() + 1, d
EOF
list "?priority=high"
[ "$(ids_of)" = "${IDS[0]} ${IDS[3]}" ] || fail "priority=high: $(ids_of)"
list "?key=k2&priority=normal,high"
[ "$(ids_of)" = "${IDS[1]} ${IDS[3]}" ] || fail "key=k2: $(ids_of)"
list "?state=done&key=k"
[ "$(ids_of)" = "${IDS[0]} ${IDS[2]} ${IDS[4]}" ] || fail "state=done&key=k: $(ids_of)"
list "?state=queued,running"
[ -z "$(ids_of)" ] || fail "state=queued,running: $(ids_of)"
list "?key=nosuchkey"
[ -z "$(ids_of)" ] || fail "key=nosuchkey: $(ids_of)"
# pages of two, following next_after, give the whole listing
got= after=0
for _ in 1 2 3 4; do
    list "?limit=2&after=$after"
    got="$got $(ids_of)"
    after=$(jq_ "$T/list.json" "d['next_after']")
    [ "$after" = None ] && break
done
[ "$(echo $got)" = "${IDS[*]}" ] || fail "pagination: $got"
list "?limit=2&after=${IDS[3]}"
[ "$(ids_of)" = "${IDS[4]}" ] && [ "$(jq_ "$T/list.json" "d['next_after']")" = None ] || fail "last page: $(cat "$T/list.json")"
for bad in "state=bogus" "state=done," "priority=urgent" "limit=0" "limit=1001" "limit=x" "after=-1" "after=1x" "key="; do
    expect GET "/v1/jobs?$bad" - 400 invalid_arg
done

# ---- /v1/timeline -------------------------------------------------------------
req GET /v1/status >"$T/status.json"
BACKEND=$(jq_ "$T/status.json" "d['backend']") # cpu, or cuda on a GPU machine
req GET "/v1/timeline?since=$t0" >"$T/tl.json"
[ "$(cat "$T/status")" = 200 ] || fail "timeline: $(cat "$T/status")"
python3 - "$T/tl.json" "$t0" "$BACKEND" "${IDS[*]}" <<'EOF' || fail "timeline spans: $(head -c 600 "$T/tl.json")"
import json, sys
d, t0, cpu = json.load(open(sys.argv[1])), float(sys.argv[2]), sys.argv[3] == "cpu"
ids = [int(x) for x in sys.argv[4].split()]
sp = d["spans"]
assert d["now"] >= t0 and d["dropped"] == 0 and d["capacity"] == 65536
keys = {"job", "partition", "worker", "thread", "device", "stage", "start", "end", "engine_job"}
for a, b in zip(sp, sp[1:]):
    assert a["start"] <= b["start"], "not ordered by start"
for s in sp:
    assert set(s) == keys, s
    gpu_lane = s["thread"].startswith("worker") and not cpu
    assert (s["device"] is None) != gpu_lane, "device of %r (backend %s)" % (s, sys.argv[3])
    assert t0 - 1 <= s["start"] <= s["end"] <= d["now"], s
    assert s["stage"] in ("synth", "device", "finalize", "verify") + (() if cpu else ("upload", "kernels")), s
# the store's job and partition (the daemon submits one engine job per partition)
assert {s["job"] for s in sp} == set(ids), ({s["job"] for s in sp}, ids)
for j, parts in zip(ids, (3, 2, 3, 2, 3)):
    assert {s["partition"] for s in sp if s["job"] == j} == set(range(parts)), j
stages = [s["stage"] for s in sp]
assert all(stages.count(x) == 13 for x in ("synth", "device", "finalize", "verify")), stages
EOF
req GET "/v1/timeline?format=chrome&since=$t0" >"$T/trace.json"
validate_trace "$T/trace.json" 13
req GET "/v1/timeline?since=4000000000" >"$T/tl2.json"
[ "$(jq_ "$T/tl2.json" "len(d['spans'])")" = 0 ] || fail "since in the future: spans"
req GET "/v1/timeline" >"$T/tl3.json" # default: the last 300 s
[ "$(jq_ "$T/tl3.json" "len(d['spans'])")" = "$(jq_ "$T/tl.json" "len(d['spans'])")" ] ||
    fail "default since: $(jq_ "$T/tl3.json" "len(d['spans'])") spans"
expect GET "/v1/timeline?since=soon" - 400 invalid_arg
expect GET "/v1/timeline?since=-5" - 400 invalid_arg
expect GET "/v1/timeline?format=svg" - 400 invalid_arg
expect POST /v1/timeline '{}' 405 method_not_allowed

# ---- /metrics -------------------------------------------------------------------
req GET /metrics >"$T/metrics.txt"
promtool check metrics <"$T/metrics.txt" >"$T/lint.out" 2>&1 || fail "promtool check metrics: $(cat "$T/lint.out")"
m() { grep -q "$1" "$T/metrics.txt" || fail "metrics: no line matching $1"; }
m '^g16d_build_info{version="[0-9.]*",commit="[^"]*",cuda="\(true\|false\)"} 1$'
m '^g16d_jobs{state="done"} 5$'
m '^g16_partitions_proved_total 13$'
m '^g16_queue_wait_seconds_count 13$'
m '^g16_stage_duration_seconds_count{stage="device"} 13$'
m '^g16_job_duration_seconds_bucket{le="+Inf"} 13$'
m '^g16d_oldest_queued_job_age_seconds 0'
m '^g16d_start_time_seconds [0-9]'
m '^g16_worker_busy_seconds_total{worker="1"} '
if grep -E '^[a-z_]+(_ms|_milliseconds)[_{ ]' "$T/metrics.txt"; then fail "metrics in ms"; fi
# _total only on counters, every counter _total
python3 - "$T/metrics.txt" <<'EOF' || fail "metric types"
import sys
for l in open(sys.argv[1]):
    if l.startswith("# TYPE "):
        _, _, name, kind = l.split()
        assert (kind == "counter") == name.endswith("_total"), l
EOF
if [ "$BACKEND" = cpu ]; then
    if grep -E '^(g16_device_|g16_gpu_|g16_keys_resident\{tier="device"\})' "$T/metrics.txt"; then fail "GPU series on a CPU daemon"; fi
else
    m '^g16_device_busy_seconds_total{device="0"} '
    m '^g16_gpu_busy_fraction{device="0"} '
fi
# every metric the dashboard and the alerts name is served (GPU series
# excepted on this CPU daemon), so that a rename breaks this test
python3 - "$T/metrics.txt" "$SRC/examples/grafana/g16d.json" "$SRC/examples/prometheus/alerts.yml" "$BACKEND" <<'EOF' || fail "dashboard/alerts name unknown metrics"
import json, re, sys
served = set()
for l in open(sys.argv[1]):
    if l.startswith("# TYPE "):
        _, _, name, kind = l.split()
        served.add(name)
        if kind == "histogram":
            served |= {name + "_bucket", name + "_sum", name + "_count"}
gpu = re.compile(r"^g16_(device_|gpu_)" if sys.argv[4] == "cpu" else r"^$")
dash = json.load(open(sys.argv[2]))
exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
try:
    import yaml
    exprs += [r["expr"] for g in yaml.safe_load(open(sys.argv[3]))["groups"] for r in g["rules"]]
except ImportError:  # the whole text: names in annotations count too
    exprs.append(open(sys.argv[3]).read())
names = set()
for e in exprs:
    names |= set(re.findall(r"\b(g16d?_[a-z0-9_]+)\b", e))
missing = sorted(n for n in names if n not in served and not gpu.match(n))
assert not missing, "not served: %s" % missing
assert len(names) >= 15, names
EOF
stop_g16d

# ---- g16 prove --batch --timeline: the same trace format -----------------------
mkdir -p "$T/out"
"$G16_BIN" prove --batch --workers 2 --timeline "$T/batch.json" "$T/k/c.zkey" "$T/k/w.0.wtns" "$T/k/w.1.wtns" \
    "$T/k/w.2.wtns" --out-dir "$T/out" 2>"$T/batch.err" || fail "prove --batch: $(cat "$T/batch.err")"
validate_trace "$T/batch.json" 3
echo "test_daemon_metrics: ok"
