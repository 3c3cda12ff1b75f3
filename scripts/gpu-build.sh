#!/usr/bin/env bash
# Runs ON the GPU machine: configures and builds the CUDA backend for sm_90
# (machine code only: -gencode arch=compute_90,code=sm_90) with the kit from
# scripts/gpu-kit.sh, the daemon left out (no libmicrohttpd or SQLite there).
#   bash scripts/gpu-build.sh BUILDDIR LOG [KITDIR]
# A full build takes ~8 minutes on the H200 machine's 16 cores; a build cut
# off by a call's time limit resumes where it stopped when run again on the
# same (warm) machine.
set -uo pipefail
cd "$(dirname "$0")/.."
bd=${1:?usage: gpu-build.sh BUILDDIR LOG [KITDIR]}
log=${2:?usage: gpu-build.sh BUILDDIR LOG [KITDIR]}
kit=$(cd "${3:-.device/kit}" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
export CPATH=$kit/include LIBRARY_PATH=$kit/lib LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
gen=; command -v ninja >/dev/null && gen="-G Ninja"
t0=$(date +%s)
{
    [ -f "$bd/CMakeCache.txt" ] || cmake -S . -B "$bd" $gen -DCMAKE_BUILD_TYPE=Release -DG16_CUDA=ON \
        -DG16_CUDA_ARCHITECTURES=90-real -DG16_DAEMON=OFF -DG16_STATIC_GMP=ON -DCMAKE_PREFIX_PATH="$kit"
    timeout "${GPU_BUILD_TIMEOUT_S:-570}" cmake --build "$bd" -j"$(nproc)" --target g16 test_gpu_msm test_gpu_ntt test_gpu_prove test_engine_gpu \
        test_gpu_fixed_base test_key_drop test_gpu_plan test_gpu_density test_prover_gpu test_prove_opts \
        test_mmap_truncate test_params_gpu test_engine_params ${GPU_BUILD_EXTRA_TARGETS:-}
} >>"$log" 2>&1
rc=$?
echo "gpu-build: rc=$rc in $(( $(date +%s) - t0 )) s" | tee -a "$log"
tail -5 "$log"
exit $rc
