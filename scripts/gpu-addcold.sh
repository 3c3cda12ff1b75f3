#!/usr/bin/env bash
# Runs ON the GPU machine (nvcc, compute-sanitizer, an H200): the add_cold
# experiment. Builds tests/gpu/addcold_repro.cu (the bucket reduction's
# kernels from src/gpu/msm/msm_buckets.cuh on inputs that take the addition's doubling,
# opposite and infinity branches, checked bit for bit against the same
# templates on the host; plus the density compaction's block scans) in
# several variants, one translation unit each, no library:
#   inline     the library's code (red_add = xyzz_t::add, inlined)
#   cold       -DG16_GPU_ADD_COLD=1: the out-of-line add_cold/dbl_cold that
#              faulted ("Invalid __local__ read of size 4 ... 0x80")
#   cold-val   -DG16_GPU_ADD_COLD=2: out of line, q by value, sum in a local
#   cold-O0    the cold variant with -Xptxas -O0 (no ptxas optimization)
#   val-O0     cold-val with -Xptxas -O0
#   val-pc     cold-val with G16_GPU_PORTABLE_CARRY (carry chains in C, not
#              on the PTX carry flag across asm statements)
#   val-G      cold-val with -G (device debug: no NVVM or ptxas optimization)
# for BN254 Fp2 (G2, where the fault was first seen) and BN254 Fp (G1), then
# runs each plainly, with a 64 KiB stack limit (cold only), under
# compute-sanitizer --tool memcheck and --tool racecheck. Logs (build logs
# with ptxas -v resource usage, cuobjdump resource usage, run logs) and a
# summary go to OUTDIR.
#   bash scripts/gpu-addcold.sh OUTDIR
# Env: ADDCOLD_FIELDS (default "2 1"; 3 = BLS12-381 Fp, slow to compile),
# ADDCOLD_VARIANTS (default "inline cold cold-val cold-O0"),
# ADDCOLD_ARCH (default sm_90). About 2-3 minutes of builds (in parallel)
# and well under a minute of runs on the H200 machine.
set -u
out=${1:?usage: gpu-addcold.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."
arch=${ADDCOLD_ARCH:-sm_90}
fields=${ADDCOLD_FIELDS:-"2 1"}
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
say "machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
say "nvcc: $(nvcc --version | tail -1)"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
say "compute-sanitizer: ${cs:-missing}"

declare -A vflags=(
    [inline]=""
    [cold]="-DG16_GPU_ADD_COLD=1"
    [cold-val]="-DG16_GPU_ADD_COLD=2"
    [cold-O0]="-DG16_GPU_ADD_COLD=1 -Xptxas -O0"
    [val-O0]="-DG16_GPU_ADD_COLD=2 -Xptxas -O0"
    [val-pc]="-DG16_GPU_ADD_COLD=2 -DG16_GPU_PORTABLE_CARRY"
    [val-G]="-DG16_GPU_ADD_COLD=2 -G"
)
variants=${ADDCOLD_VARIANTS:-"inline cold cold-val cold-O0"}
t0=$(date +%s)
pids=()
for f in $fields; do
    for v in $variants; do
        exe="$out/addcold_f${f}_$v"
        # shellcheck disable=SC2086
        (timeout 280 nvcc -std=c++17 -O3 -arch="$arch" -lineinfo -Xptxas -v -Iinclude -Isrc \
            -DADDCOLD_FIELD="$f" ${vflags[$v]} tests/gpu/addcold_repro.cu -o "$exe" \
            >"$out/build_f${f}_$v.log" 2>&1 || echo "build failed" >>"$out/build_f${f}_$v.log") &
        pids+=($!)
    done
done
wait "${pids[@]}"
say "builds: $(( $(date +%s) - t0 )) s"

for f in $fields; do
    for v in $variants; do
        exe="$out/addcold_f${f}_$v"
        tag="f${f}_$v"
        if [ ! -x "$exe" ]; then
            say "$tag: BUILD FAILED (build_$tag.log: $(grep -m1 -i error "$out/build_$tag.log"))"
            continue
        fi
        # What ptxas says about the kernels and add_cold (stack frame, spills).
        grep -E "stack frame|spill|Function properties|Compiling entry" "$out/build_$tag.log" |
            sed 's/^/    /' >"$out/ptxas_$tag.txt"
        cuobjdump --dump-resource-usage "$exe" >"$out/resusage_$tag.txt" 2>&1
        timeout 60 "$exe" >"$out/run_$tag.log" 2>&1
        rc=$?
        say "$tag: plain rc=$rc $(grep -E "^addcold: (all|MISMATCH)|CK|error" "$out/run_$tag.log" | tail -1)"
        if [ "$v" = cold ]; then
            ADDCOLD_STACK=65536 timeout 60 "$exe" >"$out/run_${tag}_stack64k.log" 2>&1
            say "$tag: stack 64 KiB rc=$? $(tail -1 "$out/run_${tag}_stack64k.log")"
        fi
        if [ -n "$cs" ]; then
            timeout 120 "$cs" --tool memcheck --show-backtrace device --print-limit 20 "$exe" \
                >"$out/memcheck_$tag.log" 2>&1
            say "$tag: memcheck rc=$? $(grep -m1 -E "ERROR SUMMARY" "$out/memcheck_$tag.log")"
            grep -m3 -E "Invalid __(local|global|shared)__|out of bounds|at .*0x" "$out/memcheck_$tag.log" |
                sed 's/^/    /' | tee -a "$summary"
            timeout 120 "$cs" --tool racecheck --racecheck-report hazard "$exe" >"$out/racecheck_$tag.log" 2>&1
            say "$tag: racecheck rc=$? $(grep -m1 -E "RACECHECK SUMMARY|ERROR SUMMARY" "$out/racecheck_$tag.log")"
        fi
    done
done
# The SASS of add_cold (the doubling branch's local loads: LDL/STL and the
# address registers) for a reading by hand.
for f in $fields; do
    exe="$out/addcold_f${f}_cold"
    [ -x "$exe" ] && cuobjdump -sass "$exe" 2>/dev/null | awk '/Function : .*add_cold/,/\.\.\.\.\.\.\.\.\.\./' \
        >"$out/sass_add_cold_f$f.txt"
done
say "total: $(( $(date +%s) - t0 )) s"
