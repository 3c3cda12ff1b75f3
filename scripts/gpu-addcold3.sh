#!/usr/bin/env bash
# The third add_cold experiment: the original fault, on the tree that had it.
# Commit 84a43bb is the last one whose G2 bucket reductions call the
# out-of-line xyzz_t::add_cold (7b87dbe inlined them after test_gpu_msm
# faulted on the H200 with an invalid __local__ read in the doubling
# branch). This builds that commit's test_gpu_msm with -lineinfo and runs it
# under compute-sanitizer and cuda-gdb, so the fault is pinned to a SASS
# instruction and its registers.
#   bash scripts/gpu-addcold3.sh build OUTDIR [COMMIT]   (here: git archive of
#        COMMIT, default 84a43bb, configured against .device/kit, only
#        test_gpu_msm built; the binary goes to OUTDIR; ~10 minutes on 2 cores)
#   bash scripts/gpu-addcold3.sh run OUTDIR [KITDIR]     (on the GPU machine:
#        the test plainly, under memcheck with device backtraces, then under
#        cuda-gdb stopping at the fault; the SASS of the kernels and of
#        add_cold/dbl_cold; logs and summary.txt in OUTDIR)
# Env: ADDCOLD3_MAX_LOG (G16_GPU_TEST_MAX_LOG for the runs, default 12: the
# naive cases only, n = 1 of G2 among them, where the fault was seen),
# ADDCOLD3_TIMEOUT_S (per run, default 150); for build, ADDCOLD3_FLAGS (more
# nvcc flags, e.g. "-Xptxas -O0") and ADDCOLD3_TAG (the binary's suffix);
# for run, ADDCOLD3_STEPS (after the plain run, default "memcheck gdb sass").
#   bash scripts/gpu-addcold3.sh disasm OUTDIR [KITDIR]  (on the GPU machine:
#        only cuda-gdb's disassembly of the faulting function, at the fault)
set -u
mode=${1:?usage: gpu-addcold3.sh build|run OUTDIR [COMMIT|KITDIR]}
out=${2:?usage}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.." || exit 1
export PATH=/usr/local/cuda/bin:$PATH
case $mode in
build)
    commit=${3:-84a43bb}
    kit=$(cd .device/kit && pwd)
    src=$out/src-$commit
    rm -rf "$src"
    mkdir -p "$src"
    git archive "$commit" | tar -C "$src" -xf - || exit 1
    export CPATH=$kit/include LIBRARY_PATH=$kit/lib
    cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DG16_CUDA=ON -DG16_DAEMON=OFF \
        -DG16_STATIC_GMP=ON -DCMAKE_PREFIX_PATH="$kit" -DCMAKE_CUDA_FLAGS="-lineinfo ${ADDCOLD3_FLAGS:-}" >"$out/build.log" 2>&1 &&
        cmake --build "$src/build" -j"${ADDCOLD3_JOBS:-2}" --target test_gpu_msm >>"$out/build.log" 2>&1
    rc=$?
    echo "gpu-addcold3: build of $commit rc=$rc"
    tag=$commit${ADDCOLD3_TAG:+-$ADDCOLD3_TAG}
    [ $rc = 0 ] && cp "$src/build/test_gpu_msm" "$out/test_gpu_msm_$tag" && rm -rf "$src/build/CMakeFiles"
    tail -3 "$out/build.log"
    exit $rc
    ;;
run | disasm) ;;
*) echo "gpu-addcold3: unknown mode $mode" >&2; exit 2 ;;
esac
kit=$(cd "${3:-.device/kit}" && pwd)
export LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
summary=$out/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
lim=${ADDCOLD3_TIMEOUT_S:-150}
export G16_GPU_TEST_MAX_LOG=${ADDCOLD3_MAX_LOG:-12}
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
gdb=$(command -v cuda-gdb || ls /usr/local/cuda/bin/cuda-gdb 2>/dev/null)
say "machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null); nvcc $(nvcc --version | tail -1)"
say "compute-sanitizer: ${cs:-missing}; cuda-gdb: ${gdb:-missing}"
[ "$mode" = run ] && for bin in "$out"/test_gpu_msm_*; do
    tag=${bin##*/test_gpu_msm_}
    timeout "$lim" "$bin" >"$out/plain_$tag.log" 2>&1
    say "$tag plain: rc=$? $(grep -E 'checks|FAIL|error|fault' "$out/plain_$tag.log" | tail -3 | tr '\n' ' ')"
    case " ${ADDCOLD3_STEPS:-memcheck gdb sass} " in *" memcheck "*) ;; *) cs= ;; esac
    case " ${ADDCOLD3_STEPS:-memcheck gdb sass} " in *" gdb "*) ;; *) gdb= ;; esac
    if [ -n "$cs" ]; then
        timeout "$lim" "$cs" --tool memcheck --show-backtrace device --print-limit 4 "$bin" \
            >"$out/memcheck_$tag.log" 2>&1
        say "$tag memcheck: rc=$? $(grep -E 'ERROR SUMMARY|Invalid' "$out/memcheck_$tag.log" | head -3 | tr '\n' ' ')"
        grep -A14 -m2 'Invalid' "$out/memcheck_$tag.log" >>"$summary"
    fi
    if [ -n "$gdb" ]; then
        # Stops at the first device exception: the faulting kernel, function,
        # PC, the instructions around it and the registers.
        timeout "$lim" "$gdb" -batch -ex 'set cuda api_failures ignore' -ex 'set cuda memcheck on' -ex run \
            -ex 'info cuda kernels' -ex bt -ex 'x/24i $pc-0x80' -ex 'info registers' \
            --args "$bin" >"$out/cudagdb_$tag.log" 2>&1
        say "$tag cuda-gdb: rc=$? $(grep -E 'CUDA_EXCEPTION|signal|Illegal|Invalid' "$out/cudagdb_$tag.log" | head -3 | tr '\n' ' ')"
    fi
    case " ${ADDCOLD3_STEPS:-memcheck gdb sass} " in *" sass "*) ;; *) continue ;; esac
    # The whole SASS is ~200 MB: keep the kernel that faulted (its add_cold
    # clone is inlined into it; cuda-gdb's disasm mode labels it).
    cuobjdump -sass "$bin" 2>&1 | awk '/Function : / {p = /msm_chunk_kernel.*fp2_t.*bn254/} p' \
        >"$out/sass_chunk_bn254_g2_$tag.txt"
    say "$tag sass: $(wc -l <"$out/sass_chunk_bn254_g2_$tag.txt") lines of msm_chunk_kernel<BN254 Fp2>"
    cuobjdump -res-usage "$bin" 2>&1 | grep -B1 -A1 -E 'cold|chunk|merge|tree|fixup' | head -60 >"$out/resusage_$tag.txt"
done
# The faulting function's whole disassembly at the fault (cuda-gdb's view
# of the add_cold clone, with its labels), for reading where the base
# register of the faulting local load is written.
if [ -n "$gdb" ] && [ "$mode" = disasm ]; then
    for bin in "$out"/test_gpu_msm_*; do
        tag=${bin##*/test_gpu_msm_}
        timeout "$lim" "$gdb" -batch -ex 'set cuda api_failures ignore' -ex run -ex 'x/64i $errorpc-0x200' \
            -ex 'disassemble' --args "$bin" >"$out/disasm_$tag.log" 2>&1
        say "$tag disassembly: $(grep -c '^ *0x' "$out/disasm_$tag.log") instructions"
    done
fi
