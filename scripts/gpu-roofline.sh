#!/usr/bin/env bash
# Runs ON the GPU machine (Nsight Compute, from a build of scripts/gpu-build.sh
# or gpu-pack.sh): the roofline of the MSM and NTT kernels, for docs/gpu.md.
# Profiles `g16 bench msm|ntt --backend cuda --reps 1` at each size with ncu
# (--clock-control none: the clocks stay as the benches see them) and
# writes, per kernel (its last profiled launch), the duration, the SM and
# memory throughput against their peaks, DRAM throughput, achieved
# occupancy, registers, issue-slot use and the two busiest pipes, as
# OUTDIR/roofline.tsv; raw CSV per run as OUTDIR/ncu_*.csv.zst.
#   bash scripts/gpu-roofline.sh OUTDIR BUILDDIR [KITDIR]
# ROOFLINE_SUMMARY_ONLY=1 only remakes roofline.tsv from the ncu_*.csv in
# OUTDIR (decompressed; anywhere, no GPU needed).
# Env: ROOFLINE_RUNS (default "msm:bls12-381:24 msm:bn254:24 ntt:bls12-381:24
# ntt:bls12-381:27:40"; KIND:CURVE:LOG[:LAUNCHES]), ROOFLINE_LAUNCHES (ncu --launch-count
# per run, default 80), ROOFLINE_TIMEOUT_S (per run, default 100). Kernel
# replay saves and restores the memory each kernel writes, so a 2^27 MSM
# (tens of GB of buckets and digits) takes minutes; name it to include it.
set -u
out=${1:?usage: gpu-roofline.sh OUTDIR BUILDDIR [KITDIR]}
bd=$(cd "${2:?usage}" && pwd)
kit=$(cd "${3:-.device/kit}" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
export LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
zstd=$(command -v zstd || echo "$kit/bin/zstd")
if [ -n "${ROOFLINE_SUMMARY_ONLY:-}" ]; then
    ROOFLINE_RUNS=none
else
    ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    [ -n "$ncu" ] || { echo "gpu-roofline: no ncu" | tee "$out/roofline.tsv"; exit 1; }
    echo "ncu: $ncu ($("$ncu" --version | tail -1))" >"$out/ncu_version.txt"
fi
sections="--section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats"
for r in ${ROOFLINE_RUNS:-msm:bls12-381:24 msm:bn254:24 ntt:bls12-381:24 ntt:bls12-381:27:40}; do
    [ "$r" = none ] && break
    IFS=: read -r kind curve lg lc <<<"$r"
    tag=${kind}_${curve}_$lg
    t0=$(date +%s)
    # shellcheck disable=SC2086
    timeout "${ROOFLINE_TIMEOUT_S:-100}" "$ncu" --clock-control none --launch-count "${lc:-${ROOFLINE_LAUNCHES:-80}}" \
        $sections --csv --page raw --print-units base \
        "$bd/g16" bench "$kind" --backend cuda --curve "$curve" --log-n "$lg" --reps 1 --json \
        >"$out/ncu_$tag.csv" 2>"$out/ncu_$tag.err"
    echo "$tag: rc=$? in $(( $(date +%s) - t0 )) s" >>"$out/runs.txt"
done
# Summary: one row per (run, kernel), the last launch of each kernel name.
python3 - "$out" <<'PY' >"$out/roofline.tsv"
import csv, glob, os, re, sys
out = sys.argv[1]
cols = [("dur_ms", "gpu__time_duration.sum", 1e-6),
        ("sm_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed", 1),
        ("mem_pct", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", 1),
        ("dram_pct", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", 1),
        ("occ_pct", "sm__warps_active.avg.pct_of_peak_sustained_active", 1),
        ("regs", "launch__registers_per_thread", 1),
        ("issue_pct", "sm__issue_active.avg.pct_of_peak_sustained_elapsed", 1),
        ("ipc", "sm__inst_issued.avg.per_cycle_active", 1),
        ("fmaheavy_pct", "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed", 1)]
print("run\tkernel\tlaunches\t" + "\t".join(c[0] for c in cols) + "\ttop_pipes")
for f in sorted(glob.glob(os.path.join(out, "ncu_*.csv"))):
    run = os.path.basename(f)[4:-4]
    lines = [l for l in open(f, errors="replace") if l.startswith('"')]
    if len(lines) < 2:
        print(f"{run}\t(no data)")
        continue
    rows = list(csv.reader(lines))
    head, data = rows[0], rows[1:]
    data = [d for d in data if len(d) == len(head) and d[0].isdigit()]  # drop the units row
    idx = {h: i for i, h in enumerate(head)}
    name_i = idx.get("Kernel Name")
    pipes = [h for h in head if re.match(r"sm__inst_executed_pipe_[a-z0-9_]+\.avg\.pct_of_peak_sustained_active$", h)]
    last, count = {}, {}
    for d in data:
        k = re.sub(r"\(.*", "", d[name_i])[:80]
        last[k] = d
        count[k] = count.get(k, 0) + 1
    def num(d, h, scale):
        try:
            return float(d[idx[h]].replace(",", "")) * scale
        except (KeyError, ValueError):
            return float("nan")
    for k, d in sorted(last.items(), key=lambda kv: -num(kv[1], cols[0][1], 1)):
        vals = [num(d, h, s) for _, h, s in cols]
        top = sorted(((num(d, p, 1), p.split("pipe_")[1].split(".")[0]) for p in pipes), reverse=True)[:2]
        tp = " ".join(f"{n}:{v:.1f}" for v, n in top if v == v)
        print(f"{run}\t{k}\t{count[k]}\t" + "\t".join(f"{v:.3f}" if c[0] == "dur_ms" else f"{v:.2f}" if c[0] == "ipc" else f"{v:.1f}"
                                                     for v, c in zip(vals, cols)) + f"\t{tp}")
PY
[ -n "${ROOFLINE_SUMMARY_ONLY:-}" ] && { cat "$out/roofline.tsv"; exit 0; }
for f in "$out"/ncu_*.csv; do "$zstd" -q -19 -f "$f" -o "$f.zst" && rm -f "$f"; done
cat "$out/runs.txt"
cut -c1-220 "$out/roofline.tsv"
