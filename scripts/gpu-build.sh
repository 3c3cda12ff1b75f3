#!/usr/bin/env bash
# Configures and builds the CUDA backend for sm_90 (machine code only:
# -gencode arch=compute_90,code=sm_90) with the kit from scripts/gpu-kit.sh,
# the daemon left out (no libmicrohttpd or SQLite on the GPU machine): the
# targets of scripts/gpu-targets.txt.
#   bash scripts/gpu-build.sh BUILDDIR LOG [KITDIR]
# On the GPU machine a full build takes ~8 minutes of its 16 cores; a build
# cut off by a call's time limit resumes where it stopped when run again on
# the same (warm) machine. Here (nvcc, no GPU) it takes ~11 minutes of 2
# cores (GPU_BUILD_JOBS=2 GPU_BUILD_TIMEOUT_S=3000), and scripts/gpu-pack.sh
# then carries the binaries instead of building there.
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
    # shellcheck disable=SC2046
    timeout "${GPU_BUILD_TIMEOUT_S:-570}" cmake --build "$bd" -j"${GPU_BUILD_JOBS:-$(nproc)}" \
        --target $(cat scripts/gpu-targets.txt) ${GPU_BUILD_EXTRA_TARGETS:-}
} >>"$log" 2>&1
rc=$?
echo "gpu-build: rc=$rc in $(( $(date +%s) - t0 )) s" | tee -a "$log"
tail -5 "$log"
exit $rc
