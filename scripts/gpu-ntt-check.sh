#!/usr/bin/env bash
# Runs ON the GPU machine: the GPU NTT test and benches from a carried build,
# logs under OUTDIR.
#   bash scripts/gpu-ntt-check.sh OUTDIR [BINDIR]
# BINDIR (default .device) holds test_gpu_ntt and g16 (built as for
# gpu-check.sh, docs/gpu.md). Env: GPU_NTT_BENCH_LOGS (default
# "16 20 22 24"), GPU_NTT_BIG_LOGS (default "26"), GPU_CHECK_BUDGET_S
# (default 420: nothing starts after that), GPU_NTT_SANITIZE (default 1:
# compute-sanitizer racecheck, then memcheck after the benches, on the test
# with sizes up to 2^GPU_NTT_SANITIZE_MAX_LOG, default 12).
set -u
start=$(date +%s)
budget=${GPU_CHECK_BUDGET_S:-420}
in_budget() { [ $(( $(date +%s) - start )) -lt "$budget" ]; }
out=${1:?usage: gpu-ntt-check.sh OUTDIR [BINDIR]}
bin=${2:-.device}
mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
say "machine: $(nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null)"

t0=$(date +%s)
timeout 200 "$bin/test_gpu_ntt" >"$out/test_gpu_ntt.log" 2>&1
rc=$?
say "test_gpu_ntt: rc=$rc ($(( $(date +%s) - t0 )) s)"
grep -E "mismatch|gpu =|cpu =|differ|CHECK failed|checks|skipped|device:|FAILED| h 2\^" "$out/test_gpu_ntt.log" | head -60 |
    tee -a "$summary"

# The tuning knobs (docs/config.md): one tile column and 64-thread pass
# blocks (gpu.ntt_cols_log = 1, gpu.ntt_threads = 64) up to 2^22.
t0=$(date +%s)
G16_GPU_NTT_COLS=1 G16_GPU_NTT_THREADS=64 G16_GPU_TEST_MAX_LOG=22 timeout 100 \
    "$bin/test_gpu_ntt" >"$out/test_gpu_ntt_tuning.log" 2>&1
say "test_gpu_ntt cols 1, 64 threads (max 2^22): rc=$? ($(( $(date +%s) - t0 )) s)"
grep -E "mismatch|CHECK failed|checks" "$out/test_gpu_ntt_tuning.log" | head -10 | tee -a "$summary"

# Shared-memory races (the kernels' barriers) on small sizes first.
SAN_TOOLS=racecheck
sanitize() {
if [ "${GPU_NTT_SANITIZE:-1}" = 1 ] && command -v compute-sanitizer >/dev/null; then
    for tool in $SAN_TOOLS; do
        in_budget || { say "skip $tool (budget)"; continue; }
        t0=$(date +%s)
        G16_GPU_TEST_MAX_LOG=${GPU_NTT_SANITIZE_MAX_LOG:-12} timeout 120 compute-sanitizer --tool $tool --print-limit 20 "$bin/test_gpu_ntt" \
            >"$out/sanitize_$tool.log" 2>&1
        say "compute-sanitizer $tool (max 2^${GPU_NTT_SANITIZE_MAX_LOG:-12}): rc=$? ($(( $(date +%s) - t0 )) s)"
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|Invalid|checks" "$out/sanitize_$tool.log" | head -12 |
            tee -a "$summary"
    done
fi
}
sanitize

# Benches: default tile shape, then the column variants (G16_GPU_NTT_COLS).
for curve in bn254 bls12-381; do
    for lg in ${GPU_NTT_BENCH_LOGS:-16 20 22 24} ${GPU_NTT_BIG_LOGS:-26}; do
        in_budget || { say "skip bench $curve 2^$lg (budget)"; continue; }
        timeout 90 "$bin/g16" bench ntt --backend cuda --curve $curve --log-n $lg --reps 7 --json \
            >>"$out/bench.jsonl" 2>>"$out/bench.err" || say "bench $curve 2^$lg failed rc=$?"
    done
done
for cols in 1 3; do
    for lg in 22 24; do
        in_budget || break
        G16_GPU_NTT_COLS=$cols timeout 90 "$bin/g16" bench ntt --backend cuda --curve bn254 --log-n $lg \
            --reps 7 --json | sed "s/^{/{\"cols\":$cols,/" >>"$out/bench_cols.jsonl" 2>>"$out/bench.err"
    done
done
grep '"kernels"' "$out/bench.jsonl" | tee -a "$summary"
grep '"total"' "$out/bench.jsonl" | grep '"ntt"' | tee -a "$summary"
echo "variants (columns; kernels):" | tee -a "$summary"
grep '"kernels"' "$out/bench_cols.jsonl" 2>/dev/null | tee -a "$summary"
tail -5 "$out/bench.err" 2>/dev/null | tee -a "$summary"

SAN_TOOLS=memcheck
sanitize
exit 0
