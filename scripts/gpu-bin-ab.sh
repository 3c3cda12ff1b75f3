#!/usr/bin/env bash
# Runs ON the GPU machine: the same `g16 bench` commands from two builds, A
# and B, alternated (A B A B ...) for ROUNDS rounds, so that a compile-time
# variant is measured against the default in one call; one JSON file per
# run and a summary line per run (the kernels' or the record's median).
#   bash scripts/gpu-bin-ab.sh OUTDIR BUILD_A BUILD_B [KITDIR]
# BENCHES: ';'-separated argument lists for `g16 bench` (each gets --json);
# ROUNDS (default 2); AB_BUDGET_S (default 420: no run starts after it).
set -u
out=${1:?usage: gpu-bin-ab.sh OUTDIR BUILD_A BUILD_B [KITDIR]}
ba=$(cd "${2:?usage}" && pwd); bb=$(cd "${3:?usage}" && pwd)
kit=$(cd "${4:-.device/kit}" && pwd)
export LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
summary=$out/summary-bin-ab.txt
start=$(date +%s)
echo "A/B of builds on $(nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader 2>/dev/null): A $ba, B $bb" | tee -a "$summary"
IFS=';' read -ra benches <<<"${BENCHES:?BENCHES not set}"
n=0
for r in $(seq 1 "${ROUNDS:-2}"); do
    for b in "${benches[@]}"; do
        for side in A B; do
            [ $(( $(date +%s) - start )) -lt "${AB_BUDGET_S:-420}" ] || { echo "skip $side $b (budget)" | tee -a "$summary"; continue; }
            bd=$ba; [ $side = B ] && bd=$bb
            n=$((n + 1))
            # shellcheck disable=SC2086
            timeout 200 "$bd/g16" bench $b --json >"$out/run_$n.json" 2>"$out/run_$n.err"
            rc=$?
            # the kernels record if there is one, else every record's name and median
            fig=$(python3 - "$out/run_$n.json" <<'PY'
import json, sys
recs = []
for l in open(sys.argv[1]):
    l = l.strip()
    if l.startswith("{"):
        try:
            recs.append(json.loads(l))
        except ValueError:
            pass
k = [r for r in recs if r.get("what") == "kernels"]
pick = k if k else recs
def val(r):
    for key in ("median_ms", "gops", "ms"):
        if key in r:
            return "%s%s" % (r[key], "" if key != "gops" else "G/s")
    return "?"
def label(r):
    return r.get("bench", "?") + ("/" + r["what"] if "what" in r else "") + ("@%s" % r["ilp"] if "ilp" in r else "")
print(" ".join("%s=%s" % (label(r), val(r)) for r in pick)[:900])
PY
)
            echo "round $r $side [$b]: rc=$rc $fig" | tee -a "$summary"
        done
    done
done
echo "A/B of builds: $(( $(date +%s) - start )) s" | tee -a "$summary"
