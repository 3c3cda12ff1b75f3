#!/usr/bin/env bash
# Runs ON the GPU machine: the GPU tests and benches from a carried build,
# logs under the folder named on the command line.
#   bash scripts/gpu-check.sh OUTDIR [BINDIR]
# BINDIR (default .device) holds test_gpu_msm and g16, built on the
# development machine with -DG16_CUDA=ON -DG16_STATIC_GMP=ON (see
# docs/gpu.md). Env: GPU_CHECK_BENCH_LOGS (default "20 22 24"),
# GPU_CHECK_G2_LOGS (default "20"), G16_GPU_TEST_MAX_LOG (default 20),
# GPU_CHECK_BUDGET_S (default 300: no bench starts after that many seconds),
# GPU_CHECK_MINB_LOGS (default "20 22 24"), GPU_CHECK_BIG_LOGS (default none).
set -u
start=$(date +%s)
budget=${GPU_CHECK_BUDGET_S:-300}
in_budget() { [ $(( $(date +%s) - start )) -lt "$budget" ]; }
out=${1:?usage: gpu-check.sh OUTDIR [BINDIR]}
bin=${2:-.device}
mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

{
    date -u
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total,temperature.gpu,power.draw --format=csv
    uname -a
} >"$out/machine.txt" 2>&1
say "machine: $(nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null)"

t0=$(date +%s)
timeout 240 "$bin/test_gpu_msm" >"$out/test_gpu_msm.log" 2>&1
rc=$?
say "test_gpu_msm: rc=$rc ($(( $(date +%s) - t0 )) s)"
grep -E "MISMATCH|CHECK failed|checks,|skipped|device:" "$out/test_gpu_msm.log" | head -30 | tee -a "$summary"

for curve in bn254 bls12-381; do
    for lg in ${GPU_CHECK_BENCH_LOGS:-20 22 24}; do
        in_budget || { say "skip bench $curve g1 2^$lg (budget)"; continue; }
        timeout 90 "$bin/g16" bench msm --backend cuda --curve $curve --log-n $lg --group g1 --reps 7 \
            --json >>"$out/bench.jsonl" 2>>"$out/bench.err" || say "bench $curve g1 2^$lg failed rc=$?"
    done
    for lg in ${GPU_CHECK_G2_LOGS:-20}; do
        in_budget || { say "skip bench $curve g2 2^$lg (budget)"; continue; }
        timeout 90 "$bin/g16" bench msm --backend cuda --curve $curve --log-n $lg --group g2 --reps 5 \
            --json >>"$out/bench.jsonl" 2>>"$out/bench.err" || say "bench $curve g2 2^$lg failed rc=$?"
    done
done
# The other accumulation-kernel variant for 12-limb fields (src/gpu/msm/msm_buckets.cuh,
# MINB; the default is 3), for comparison.
for lg in ${GPU_CHECK_MINB_LOGS:-20 22 24}; do
    in_budget || break
    G16_GPU_ACC_MINB=1 timeout 90 "$bin/g16" bench msm --backend cuda --curve bls12-381 --log-n $lg --group g1 \
        --reps 7 --json >>"$out/bench_minb1.jsonl" 2>>"$out/bench.err"
done
in_budget && G16_GPU_ACC_MINB=1 timeout 90 "$bin/g16" bench msm --backend cuda --curve bls12-381 --log-n 20 \
    --group g2 --reps 5 --json >>"$out/bench_minb1.jsonl" 2>>"$out/bench.err"
for lg in ${GPU_CHECK_BIG_LOGS:-}; do
    for curve in bn254 bls12-381; do
        in_budget || break
        timeout 120 "$bin/g16" bench msm --backend cuda --curve $curve --log-n $lg --group g1 --reps 3 \
            --json >>"$out/bench.jsonl" 2>>"$out/bench.err" || say "bench $curve g1 2^$lg failed rc=$?"
    done
done
cat "$out/bench.jsonl" | tee -a "$summary"
echo "G16_GPU_ACC_MINB=1:" | tee -a "$summary"
cat "$out/bench_minb1.jsonl" 2>/dev/null | tee -a "$summary"
tail -5 "$out/bench.err" 2>/dev/null | tee -a "$summary"
exit 0
