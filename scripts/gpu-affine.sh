#!/usr/bin/env bash
# Runs ON the GPU machine: the checks of the GPU MSM's batch-affine rounds
# (msm_affine.cuh, gpu.msm_affine_rounds), logs under OUTDIR, a summary last.
#   bash scripts/gpu-affine.sh OUTDIR BUILDDIR [KITDIR]
# test_gpu_msm as is (its variants include the rounds) beside test_gpu_msm
# with every context on 3 rounds (G16_GPU_MSM_AFFINE=3: the main tests,
# tables, G2, chunks, streamed); then the density, prover and plan tests with
# the rounds on, and test_gpu_msm's small sizes under compute-sanitizer.
set -u
out=${1:?usage: gpu-affine.sh OUTDIR BUILDDIR [KITDIR]}
bd=$(cd "${2:?usage}" && pwd)
kit=$(cd "${3:-.device/kit}" && pwd)
export LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
summary=$out/summary-affine.txt
start=$(date +%s)
say() { echo "$*" | tee -a "$summary"; }
t() { # name timeout env... -- command
    local name=$1 lim=$2; shift 2
    local t0=$(date +%s)
    timeout "$lim" env "$@" >"$out/$name.log" 2>&1 </dev/null
    say "$name: rc=$? ($(( $(date +%s) - t0 )) s) $(grep -E 'checks|passed|failed|ERROR SUMMARY|FAIL' "$out/$name.log" | tail -3 | tr '\n' ' ' | cut -c1-400)"
}
say "affine checks on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null), commit ${G16_COMMIT:-unknown}"
t msm_default 300 "$bd/test_gpu_msm" &
t msm_affine3 300 G16_GPU_MSM_AFFINE=3 "$bd/test_gpu_msm" &
t plan 60 "$bd/test_gpu_plan" &
wait
t density_affine3 200 G16_GPU_MSM_AFFINE=3 "$bd/test_gpu_density" &
t prove_affine3 240 G16_GPU_MSM_AFFINE=3 G16_GPU_TEST_MAX_LOG=16 "$bd/test_gpu_prove" &
t memcheck_affine3 300 G16_GPU_MSM_AFFINE=3 G16_GPU_TEST_MAX_LOG=11 G16_GPU_TEST_VARIANTS=0 \
    compute-sanitizer --tool memcheck --error-exitcode 9 "$bd/test_gpu_msm" &
wait
say "affine checks: $(( $(date +%s) - start )) s"
