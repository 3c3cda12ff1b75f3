#!/usr/bin/env bash
# A GPU test run against an older commit of g16, to show that a test fails
# on the code before a fix (the standard for bug fixes: the test must be
# able to fail). Two halves:
#
# Here (the dev machine, with git):
#   bash scripts/gpu-before.sh prepare COMMIT TEST_FILE...
#     writes oldtree/ = `git archive COMMIT` with the given test files copied
#     in from the working tree (the new test over the old code), and lists
#     oldtree/ in .git/info/exclude; pass it to the device in `carry`.
# On the GPU machine:
#   bash scripts/gpu-before.sh build BUILDDIR LOG KITDIR TARGET...
#     configures and builds oldtree/ for sm_90 like scripts/gpu-build.sh
#     (same kit), only the named targets;
#   bash scripts/gpu-before.sh run BUILDDIR TEST [ARGS...]
#     runs one test binary of it and reports its exit status.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: gpu-before.sh prepare|build|run ...}
shift
case $mode in
prepare)
    commit=${1:?usage: gpu-before.sh prepare COMMIT TEST_FILE...}
    shift
    rm -rf oldtree
    mkdir oldtree
    git archive "$commit" | tar -x -C oldtree
    for f in "$@"; do
        mkdir -p "oldtree/$(dirname "$f")"
        cp "$f" "oldtree/$f"
    done
    grep -qx 'oldtree/' .git/info/exclude 2>/dev/null || echo 'oldtree/' >>.git/info/exclude
    echo "gpu-before: oldtree/ = $commit + $*"
    ;;
build)
    bd=${1:?usage: gpu-before.sh build BUILDDIR LOG KITDIR TARGET...}
    log=${2:?} kit=$(cd "${3:?}" && pwd)
    shift 3
    export PATH=/usr/local/cuda/bin:$PATH
    export CPATH=$kit/include LIBRARY_PATH=$kit/lib LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    gen=
    command -v ninja >/dev/null && gen="-G Ninja"
    t0=$(date +%s)
    {
        # shellcheck disable=SC2086
        [ -f "$bd/CMakeCache.txt" ] || cmake -S oldtree -B "$bd" $gen -DCMAKE_BUILD_TYPE=Release -DG16_CUDA=ON \
            -DG16_CUDA_ARCHITECTURES=90-real -DG16_DAEMON=OFF -DG16_STATIC_GMP=ON -DCMAKE_PREFIX_PATH="$kit"
        timeout "${GPU_BUILD_TIMEOUT_S:-570}" cmake --build "$bd" -j"$(nproc)" --target "$@"
    } >>"$log" 2>&1
    rc=$?
    echo "gpu-before build: rc=$rc in $(($(date +%s) - t0)) s" | tee -a "$log"
    exit $rc
    ;;
run)
    bd=${1:?usage: gpu-before.sh run BUILDDIR TEST [ARGS...]}
    t=${2:?}
    shift 2
    "$bd/$t" "$@"
    rc=$?
    echo "gpu-before run: $t rc=$rc (on the old code)"
    exit $rc
    ;;
*)
    echo "gpu-before.sh: unknown mode $mode" >&2
    exit 2
    ;;
esac
