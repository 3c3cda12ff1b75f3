#!/usr/bin/env bash
# Runs ON the GPU machine: test_gpu_msm and the MSM benches that compare the
# variants of src/gpu/msm/msm.cuh (docs/gpu.md, "MSM"), logs
# under OUTDIR.
#   bash scripts/gpu-msm-check.sh OUTDIR [BINDIR]
# BINDIR (default .device, absolute or relative to the current folder) holds
# test_gpu_msm and g16 (see docs/gpu.md for the build).
# Env: GPU_CHECK_BUDGET_S (default 400: no bench starts after that many
# seconds), GPU_MSM_SKIP_TEST=1 (benches only).
set -u
start=$(date +%s)
budget=${GPU_CHECK_BUDGET_S:-400}
in_budget() { [ $(( $(date +%s) - start )) -lt "$budget" ]; }
out=${1:?usage: gpu-msm-check.sh OUTDIR [BINDIR]}
bin=$(cd "${2:-.device}" && pwd)
mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
say "machine: $(nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null)"

if [ "${GPU_MSM_SKIP_TEST:-0}" != 1 ]; then
    t0=$(date +%s)
    timeout 300 "$bin/test_gpu_msm" >"$out/test_gpu_msm.log" 2>&1
    rc=$?
    say "test_gpu_msm: rc=$rc ($(( $(date +%s) - t0 )) s)"
    grep -E "MISMATCH|CHECK failed|FAIL|checks,|skipped|device:|variant:" "$out/test_gpu_msm.log" | head -40 |
        tee -a "$summary"
fi

# bench LABEL ENV... -- ARGS: one `g16 bench msm --backend cuda` run, its JSON
# lines prefixed with the label.
bench() {
    local label=$1
    shift
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    in_budget || { say "skip $label $* (budget)"; return; }
    local res
    res=$(env "${envs[@]}" timeout 120 "$bin/g16" bench msm --backend cuda --json "$@" 2>>"$out/bench.err")
    local rc=$?
    [ $rc -ne 0 ] && say "bench $label $* failed rc=$rc"
    while IFS= read -r line; do
        [ -n "$line" ] && say "$label $line"
    done <<<"$res"
}

# The defaults, G1 and G2, both curves.
for lg in 20 22 24; do
    for curve in bn254 bls12-381; do
        bench default -- --curve $curve --log-n $lg --reps 7
    done
done
for curve in bn254 bls12-381; do
    bench default -- --curve $curve --log-n 20 --group g2 --reps 5
done
# Window widths and segment lengths at 2^24 (the model picks c = 20).
for c in 16 18 19 21 22; do
    bench c=$c G16_GPU_MSM_C=$c -- --curve bls12-381 --log-n 24 --reps 5
done
bench c=16 G16_GPU_MSM_C=16 -- --curve bn254 --log-n 24 --reps 5
for seg in 64 128; do
    bench seg=$seg G16_GPU_MSM_SEG=$seg -- --curve bls12-381 --log-n 24 --reps 5
done
bench minb1 G16_GPU_ACC_MINB=1 -- --curve bls12-381 --log-n 24 --reps 5
bench minb1 G16_GPU_ACC_MINB=1 -- --curve bls12-381 --log-n 20 --group g2 --reps 3
# 0/1-heavy scalars, streamed bases, G2 at 2^22.
for lg in 20 24; do
    bench filecoin -- --curve bls12-381 --log-n $lg --profile filecoin --reps 5
done
bench streamed -- --curve bls12-381 --log-n 22 --streamed --reps 5
bench streamed -- --curve bn254 --log-n 24 --streamed --reps 3
bench default -- --curve bls12-381 --log-n 22 --group g2 --reps 3
bench default -- --curve bn254 --log-n 22 --group g2 --reps 3
tail -5 "$out/bench.err" 2>/dev/null | tee -a "$summary"
exit 0
