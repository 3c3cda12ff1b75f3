#!/usr/bin/env bash
# Runs ON the GPU machine (nvcc 13.0, compute-sanitizer, cuobjdump, an H200):
# the second add_cold experiment, on why add_cold_val (-DG16_GPU_ADD_COLD=2)
# differs from the host. Hypothesis (from the PTX, read without a GPU): nvcc
# 13.0's NVVM at -O2/-O3 compiles
#     t = *a; if (!q.is_inf()) { if (t.is_inf()) t = q; else t op= q; } *a = t;
# with q an aggregate taken by value (a __noinline__ device function's
# parameter, or a kernel parameter) to the unconditional *a = q: the PTX of
# add_cold_val ends, on every path, in 16 st.local.v4 into *this of the 64
# words of q (with the carry-flag asm of the sum left in, its results
# unused; with G16_GPU_PORTABLE_CARRY nothing but 16 ld.param.v4 of q and
# the 16 stores). -Xcicc -O1 and -G store the sum. Not undefined behaviour
# in our source: the smallest form (tests/gpu/addcold_repro.cu part 5) has
# no field code, and clang 14 keeps its branches.
# Builds tests/gpu/addcold_repro.cu for BN254 Fp2 as:
#   inline  the library's inlined additions (MSM equal; part 5's by-value
#           forms differ: part 5 is compiled -O3 in every variant)
#   val     -DG16_GPU_ADD_COLD=2, the differing build
#   val-c2  val with -Xcicc -O2 (NVVM -O2: the hypothesis says it differs)
#   fix     val with -Xcicc -O1 (NVVM -O1: the hypothesis says it is equal,
#           part 5 too); the compiler-level fix, no source change
#   val-c3  val with -Xcicc -O3 -Xptxas -O0 (NVVM's PTX alone, ptxas
#           unoptimized: still differs if the PTX is wrong)
# runs each plainly, under compute-sanitizer --tool memcheck and --tool
# initcheck, and reads add_cold_val's PTX out of each binary (cuobjdump
# -ptx: its stores and where their words come from). Logs and summary.txt
# go to OUTDIR.
#   bash scripts/gpu-addcold2.sh OUTDIR
# ADDCOLD2_BUILD_ONLY=1 builds and reads the PTX and SASS only (on the
# development machine: nvcc needs no GPU); carry OUTDIR and run the script
# on the GPU machine with the same OUTDIR, where the built variants are not
# built again.
# Env: ADDCOLD2_VARIANTS (default "inline val val-c2 fix"; also val-c3,
# fix-O0 (-Xcicc -O1 -Xptxas -O0),
# val-pc and val-G),
# ADDCOLD2_FIELD (default 2), ADDCOLD2_ARCH (default sm_90). About 2-3
# minutes of parallel builds on 16 cores and under a minute of runs.
set -u
out=${1:?usage: gpu-addcold2.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.." || exit 1
arch=${ADDCOLD2_ARCH:-sm_90}
f=${ADDCOLD2_FIELD:-2}
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
say "machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
say "nvcc: $(nvcc --version | tail -1)"
say "commit: $(git rev-parse --short HEAD 2>/dev/null)"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
say "compute-sanitizer: ${cs:-missing}"

declare -A vflags=(
    [inline]=""
    [val]="-DG16_GPU_ADD_COLD=2"
    [val-c2]="-DG16_GPU_ADD_COLD=2 -Xcicc -O2"
    [fix]="-DG16_GPU_ADD_COLD=2 -Xcicc -O1"
    [val-c3]="-DG16_GPU_ADD_COLD=2 -Xcicc -O3 -Xptxas -O0"
    [fix-O0]="-DG16_GPU_ADD_COLD=2 -Xcicc -O1 -Xptxas -O0"
    [val-pc]="-DG16_GPU_ADD_COLD=2 -DG16_GPU_PORTABLE_CARRY"
    [val-G]="-DG16_GPU_ADD_COLD=2 -G"
)
variants=${ADDCOLD2_VARIANTS:-"inline val val-c2 fix"}
t0=$(date +%s)
pids=()
for v in $variants; do
    exe="$out/addcold2_f${f}_$v"
    [ -x "$exe" ] && continue # built beforehand (ADDCOLD2_BUILD_ONLY=1 here, then carried)
    # shellcheck disable=SC2086
    (timeout ${ADDCOLD2_BUILD_TIMEOUT_S:-220} nvcc -std=c++17 -O3 -arch="$arch" -lineinfo -Xptxas -v -Iinclude -Isrc \
        -DADDCOLD_FIELD="$f" ${vflags[$v]} tests/gpu/addcold_repro.cu -o "$exe" \
        >"$out/build_$v.log" 2>&1 || echo "build failed" >>"$out/build_$v.log") &
    pids+=($!)
done
wait "${pids[@]}"
say "builds: $(( $(date +%s) - t0 )) s"

# add_cold_val's PTX (and part 5's bv_val and bv_param_kernel) in a binary:
# its size, stores, parameter loads, branches, and where the stored words
# were loaded from (the root of each load's address through mov/cvta/add: a
# parameter, a register, or "computed" for values not loaded). The
# hypothesis: in the NVVM -O2/-O3 builds add_cold_val stores 64 words, all
# loaded from param_1 (q); in the -O1 build most stored words are computed.
shape_awk=$(cat <<'AWK'
# Reads PTX; for the first function whose header matches pat, prints its
# size, stores, parameter loads, branches, and where the stored values were
# loaded from (the root of each address: a parameter symbol or a register).
function root(x,   n) {
    sub(/\+.*/, "", x)
    for (n = 0; (x in def) && n < 50; n++) {
        x = def[x]
        sub(/\+.*/, "", x)
    }
    if (x ~ /_param_[0-9]+$/) {
        sub(/.*_param_/, "param_", x)
    }
    return x
}
($0 ~ "^(\\.visible |\\.weak )?\\.(func|entry) [^ ]*" pat "[^ ]*\\($") { p = 1 }
p {
    n++
    line = $0
    sub(/^[ \t]+/, "", line)
    op = line
    sub(/[ \t].*/, "", op)
    rest = line
    sub(/^[^ \t]+[ \t]+/, "", rest)
    if (op ~ /^(mov|cvta|add)/ && rest ~ /^%rd[0-9]+,/) {
        d = rest; sub(/,.*/, "", d)
        s = rest; sub(/^[^,]*,[ \t]*/, "", s); sub(/[,;].*/, "", s)
        def[d] = s
    }
    if (op ~ /^ld\./) {
        if (op ~ /^ld\.param/) lp++; else ld++
        addr = rest; sub(/.*\[/, "", addr); sub(/\].*/, "", addr)
        regs = rest; sub(/\[.*/, "", regs); gsub(/[{} \t;]/, "", regs)
        k = split(regs, r, ",")
        for (i = 1; i <= k; i++)
            if (r[i] != "") {
                if (r[i] ~ /^%rd/ && op ~ /\.u64|\.b64/) def[r[i]] = addr
                from[r[i]] = addr
            }
    }
    if (op ~ /^st\./) {
        st++
        vals = rest; sub(/^[^\]]*\][ \t]*,[ \t]*/, "", vals); gsub(/[{} \t;]/, "", vals)
        k = split(vals, r, ",")
        for (i = 1; i <= k; i++)
            src[(r[i] in from) ? root(from[r[i]]) : "computed"]++
    }
    if ($0 ~ /@%p[0-9]+ bra/) br++
    if ($0 ~ /^}/) {
        printf "%d lines, %d st, %d ld.param, %d other ld, %d branches; stored words from:", n, st, lp, ld, br
        for (s in src) printf " %s x%d", s, src[s]
        printf "\n"
        exit
    }
}
AWK
)
ptx_shape() { # exe name-pattern (part of the mangled name)
    local r
    r=$(cuobjdump -ptx "$1" 2>/dev/null | awk -v pat="$2" "$shape_awk")
    echo "${r:-absent}"
}
for v in $variants; do
    exe="$out/addcold2_f${f}_$v"
    if [ ! -x "$exe" ]; then
        say "$v: BUILD FAILED (build_$v.log: $(grep -m1 -i error "$out/build_$v.log"))"
        continue
    fi
    # add_cold_val's block with its first store (the stores into *this and
    # the loads that feed them), from its label to the next ret
    cuobjdump -ptx "$exe" 2>/dev/null | grep -v '^[[:space:]]*\.loc' |
        awk '/^\.func .*add_cold_val[^ ]*\($/ {p = 1} !p {next}
             /^\$L/ || /^\{/ {n = 0} {b[n++] = $0}
             $1 ~ /^st\./ && !s {s = 1; for (i = 0; i < n; i++) print b[i]; next}
             s {print} s && /ret;/ {exit}' >"$out/ptx_add_cold_val_store_$v.txt"
    say "$v: PTX add_cold_val: $(ptx_shape "$exe" add_cold_val)"
    say "$v: PTX bv_val: $(ptx_shape "$exe" 6bv_val)"
    say "$v: PTX bv_param_kernel: $(ptx_shape "$exe" bv_param_kernel)"
    grep -E "stack frame|spill|Compiling entry|Function properties for .*add_cold_val" "$out/build_$v.log" |
        sed 's/^/    /' >"$out/ptxas_$v.txt"
done
# The SASS of add_cold_val (cuobjdump -sass: "Function : NAME" headers), for
# a reading by hand.
for v in $variants; do
    exe="$out/addcold2_f${f}_$v"
    [ -x "$exe" ] && cuobjdump -sass "$exe" 2>/dev/null |
        awk '/Function : / {p = ($0 ~ /add_cold_val/)} p' >"$out/sass_add_cold_val_$v.txt"
done
if [ "${ADDCOLD2_BUILD_ONLY:-0}" = 1 ]; then
    say "built (ADDCOLD2_BUILD_ONLY): $(( $(date +%s) - t0 )) s"
    exit 0
fi
# Plain runs one after the other (short), then the sanitizers in parallel.
for v in $variants; do
    exe="$out/addcold2_f${f}_$v"
    [ -x "$exe" ] || continue
    timeout 60 "$exe" >"$out/run_$v.log" 2>&1
    rc=$?
    say "$v: plain rc=$rc $(grep -E "^addcold: (all|MISMATCH)|CK|error" "$out/run_$v.log" | tail -1)"
    grep -E "differ from the host|second operand|by-value" "$out/run_$v.log" | sed 's/^/    /' | tee -a "$summary"
done
if [ -n "$cs" ]; then
    pids=()
    for v in $variants; do
        exe="$out/addcold2_f${f}_$v"
        [ -x "$exe" ] || continue
        (timeout 150 "$cs" --tool memcheck --show-backtrace device --print-limit 20 "$exe" \
            >"$out/memcheck_$v.log" 2>&1; echo "rc=$?" >>"$out/memcheck_$v.log") &
        pids+=($!)
        (timeout 150 "$cs" --tool initcheck --print-limit 20 "$exe" \
            >"$out/initcheck_$v.log" 2>&1; echo "rc=$?" >>"$out/initcheck_$v.log") &
        pids+=($!)
    done
    wait "${pids[@]}"
    for v in $variants; do
        for tool in memcheck initcheck; do
            log="$out/${tool}_$v.log"
            [ -f "$log" ] || continue
            say "$v: $tool $(tail -1 "$log") $(grep -m1 -E "ERROR SUMMARY" "$log")"
            grep -m3 -E "Invalid __(local|global|shared)__|Uninitialized __global__|out of bounds" "$log" |
                sed 's/^/    /' | tee -a "$summary"
        done
    done
fi
say "total: $(( $(date +%s) - t0 )) s"
