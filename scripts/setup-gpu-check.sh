#!/usr/bin/env bash
# Runs ON the GPU machine: the GPU fixed-base test and the test-only setup's
# timings (CPU vs CUDA fixed-base), logs under OUTDIR.
#   bash scripts/setup-gpu-check.sh OUTDIR [BINDIR]
# BINDIR (default .device) holds test_gpu_fixed_base and g16 built with
# -DG16_CUDA=ON -DG16_STATIC_GMP=ON (docs/gpu.md); g16 may need
# LD_LIBRARY_PATH=BINDIR for libjansson. Env:
#   SETUP_CHECK_LOGS   setup timings to file, both backends (default "20 22 24")
#   SETUP_CHECK_MEM    in-memory `bench prove --synthetic` sizes (default "24")
#   SETUP_CHECK_BUDGET_S  no step starts after this many seconds (default 480)
#   SETUP_CHECK_PROVE_BACKEND  prover backend of the in-memory bench (default cpu)
set -u
start=$(date +%s)
budget=${SETUP_CHECK_BUDGET_S:-480}
in_budget() { [ $(( $(date +%s) - start )) -lt "$budget" ]; }
out=${1:?usage: setup-gpu-check.sh OUTDIR [BINDIR]}
bin=$(cd "${2:-.device}" && pwd)
export LD_LIBRARY_PATH="$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
say "machine: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"

t0=$(date +%s)
timeout 300 "$bin/test_gpu_fixed_base" >"$out/test_gpu_fixed_base.log" 2>&1
say "test_gpu_fixed_base: rc=$? ($(( $(date +%s) - t0 )) s)"
grep -E "CHECK failed|MISMATCH|DIFFER|checks,|skipped|device:|bench|key " "$out/test_gpu_fixed_base.log" | head -40 | tee -a "$summary"

work=$(mktemp -d /tmp/setupcheck.XXXXXX)
for lg in ${SETUP_CHECK_LOGS:-20 22 24}; do
    for curve in bn254 bls12-381; do
        in_budget || { say "skip setup $curve 2^$lg (budget)"; continue; }
        "$bin/g16" synth --curve $curve --log-n $lg --profile filecoin --out $work/c.r1cs --witness $work/w.wtns \
            --seed 1 >/dev/null 2>>"$out/setup.err" || { say "synth $curve 2^$lg failed"; continue; }
        for be in cuda cpu; do
            in_budget || break
            [ $be = cpu ] && [ $lg -gt 22 ] && continue # the CPU's 2^24 is in BENCHMARKS.md (128 s)
            /usr/bin/time -f "%e s wall, %M KB peak" timeout 300 "$bin/g16" setup --insecure-test-setup \
                $work/c.r1cs $work/c_$be.zkey --seed 1 --backend $be >"$out/setup_${curve}_${lg}_$be.log" 2>&1
            say "setup $curve 2^$lg $be: rc=$? $(grep -h 'wrote\|wall' "$out/setup_${curve}_${lg}_$be.log" | tr '\n' ' ')"
        done
        if [ -f $work/c_cpu.zkey ] && [ -f $work/c_cuda.zkey ]; then
            cmp $work/c_cpu.zkey $work/c_cuda.zkey >/dev/null 2>&1 && say "  keys equal (cpu, cuda)" \
                || say "  KEYS DIFFER (cpu, cuda): $(cmp $work/c_cpu.zkey $work/c_cuda.zkey 2>&1 | head -1)"
        fi
        rm -f $work/c_cpu.zkey $work/c_cuda.zkey
    done
done
rm -rf "$work"
for lg in ${SETUP_CHECK_MEM:-24}; do
    for curve in bn254 bls12-381; do
        in_budget || { say "skip bench prove --synthetic $curve 2^$lg (budget)"; continue; }
        timeout 900 "$bin/g16" bench prove --synthetic --curve $curve --log-n $lg --profile filecoin --reps 1 \
            --backend ${SETUP_CHECK_PROVE_BACKEND:-cpu} --json >>"$out/bench_synthetic.jsonl" 2>>"$out/bench_synthetic.err"
        say "bench prove --synthetic $curve 2^$lg: rc=$? $(tail -1 "$out/bench_synthetic.jsonl")"
    done
done
say "total $(( $(date +%s) - start )) s"
