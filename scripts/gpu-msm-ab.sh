#!/usr/bin/env bash
# Runs ON the GPU machine: A/B runs of `g16 bench msm --backend cuda --ab`
# (the default context against one with an option changed, interleaved in
# one process over the same resident bases, every result checked), one JSON
# file each and a summary line per run with A's and B's kernel medians.
#   bash scripts/gpu-msm-ab.sh OUTDIR BUILDDIR [KITDIR]
# AB_RUNS: space-separated CURVE:GROUP:LOG:KEY=VALUE[:FLAG...] (flags are
# passed as given, e.g. --precompute); AB_REPS (default 7); AB_BUDGET_S
# (default 500: no run starts after that many seconds).
set -u
out=${1:?usage: gpu-msm-ab.sh OUTDIR BUILDDIR [KITDIR]}
bd=$(cd "${2:?usage}" && pwd)
kit=$(cd "${3:-.device/kit}" && pwd)
export LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
summary=$out/summary-ab.txt
start=$(date +%s)
echo "msm A/B on $(nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null), commit ${G16_COMMIT:-unknown}" | tee -a "$summary"
i=0
for spec in ${AB_RUNS:?AB_RUNS not set}; do
    [ $(( $(date +%s) - start )) -lt "${AB_BUDGET_S:-500}" ] || { echo "skip $spec (budget)" | tee -a "$summary"; continue; }
    IFS=: read -r curve group lg ab flags <<<"$spec"
    i=$((i + 1))
    f=$out/ab_$i.json
    t0=$(date +%s)
    # shellcheck disable=SC2086
    timeout 240 "$bd/g16" bench msm --backend cuda --curve "$curve" --group "$group" --log-n "$lg" \
        --reps "${AB_REPS:-7}" --ab "$ab" ${flags//:/ } --json >"$f" 2>"$out/ab_$i.err"
    rc=$?
    line=$(grep '"what":"kernels"' "$f" | head -1)
    a=$(sed -n 's/.*"what":"kernels","min_ms":\([0-9.]*\),"median_ms":\([0-9.]*\).*/\2 (min \1)/p' <<<"$line")
    acc=$(sed -n 's/.*"sort_ms":\([0-9.]*\),"acc_ms":\([0-9.]*\),"reduce_ms":\([0-9.]*\),"table_ran".*/sort \1 acc \2 red \3/p' <<<"$line")
    b=$(sed -n 's/.*"ab":{\(.*\)}.*/\1/p' <<<"$line")
    echo "$spec: rc=$rc $(( $(date +%s) - t0 )) s; A $a [$acc]; B {$b}; $(tail -1 "$out/ab_$i.err" | cut -c1-200)" | tee -a "$summary"
done
echo "msm A/B: $(( $(date +%s) - start )) s" | tee -a "$summary"
