#!/usr/bin/env bash
# Runs ON the GPU machine, from a build of scripts/gpu-build.sh: one phase of
# the GPU checks, logs and JSON under OUTDIR, a summary last.
#   bash scripts/gpu-suite.sh PHASE OUTDIR BUILDDIR [KITDIR]
# Phases:
#   tests   every GPU test (GPU = CPU exactly), two at a time where they are
#           independent, the engine tests alone
#   bench   the headline figures: G1 MSM 2^24 (both curves, with and without
#           window tables), G2 MSM 2^22, NTT 2^24, the BN254 2^24 proof, and
#           the one-shot CLI prove on CPU and GPU at 2^10..2^18 (auto's
#           break-even)
#   job27   the 10-partition 2^27 BLS12-381 engine job (~5 minutes)
#   params  PoRep-shaped .params partitions on the GPU (g16 bench params
#           --backend cuda --partitions 10) at 2^PARAMS_LOGS (default 24);
#           PARAMS_FLAGS="--synthetic" keeps circuit and partition in memory
#           (only the key on disk: 47 GiB at 2^27); PARAMS_WPD workers per
#           GPU in the job (default 1), PARAMS_REPS single proofs (default 3)
# Env: SUITE_BUDGET_S (default 540: no step starts after that many seconds);
# BENCH_CLI_LOGS (bench: the CLI proofs' sizes, default "10 12 14 16 18";
# empty leaves them out).
set -u
phase=${1:?usage: gpu-suite.sh PHASE OUTDIR BUILDDIR [KITDIR]}
out=${2:?usage}; bd=$(cd "${3:?usage}" && pwd)
kit=$(cd "${4:-.device/kit}" && pwd)
export LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export G16_BIN=$bd/g16 G16_BUILD_DIR=$bd
mkdir -p "$out"
summary=$out/summary-$phase.txt
: >"$summary"
start=$(date +%s)
budget=${SUITE_BUDGET_S:-540}
in_budget() { [ $(( $(date +%s) - start )) -lt "$budget" ]; }
say() { echo "$*" | tee -a "$summary"; }
say "phase $phase on $(nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used --format=csv,noheader 2>/dev/null), $(nproc) cores, commit ${G16_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}"

run_test() { # name timeout [env...] -- command...
    local name=$1 lim=$2; shift 2
    local t0=$(date +%s)
    env "$@" >"$out/$name.log" 2>&1 </dev/null &
    local pid=$!
    ( sleep "$lim"; kill -TERM $pid 2>/dev/null ) &
    local killer=$!
    wait $pid; local rc=$?
    kill $killer 2>/dev/null; wait $killer 2>/dev/null
    say "$name: rc=$rc ($(( $(date +%s) - t0 )) s) $(grep -E 'checks|passed|failed|skipped|MISMATCH' "$out/$name.log" | tail -2 | tr '\n' ' ')"
}

case $phase in
tests)
    run_test test_gpu_msm 300 "$bd/test_gpu_msm" &
    run_test test_gpu_ntt 200 "$bd/test_gpu_ntt" &
    wait
    run_test test_gpu_prove 240 G16_GPU_TEST_MAX_LOG=16 "$bd/test_gpu_prove" &
    run_test test_gpu_fixed_base 200 "$bd/test_gpu_fixed_base" &
    run_test test_key_drop 120 "$bd/test_key_drop" &
    run_test test_gpu_plan 60 "$bd/test_gpu_plan" &
    wait
    run_test test_gpu_density 200 "$bd/test_gpu_density" &
    run_test test_prover_gpu 200 "$bd/test_prover_gpu" &
    run_test test_prove_opts 120 "$bd/test_prove_opts" &
    wait
    run_test test_params_gpu 240 "$bd/test_params_gpu" &
    run_test test_engine_params_cuda 200 "$bd/test_engine_params" tests/vectors/params_toy.params \
        tests/vectors/params_toy.assignment "" cuda &
    wait
    run_test test_mmap_truncate 200 "$bd/test_mmap_truncate"
    run_test test_key_truncate 200 bash tests/test_key_truncate.sh
    run_test test_engine_gpu 300 "$bd/test_engine_gpu"
    run_test test_gpu_cli 200 bash tests/test_gpu_cli.sh
    ;;
bench)
    b() { # label timeout args...
        local label=$1 lim=$2; shift 2
        in_budget || { say "skip $label (budget)"; return; }
        timeout "$lim" "$bd/g16" bench "$@" --json >"$out/$label.json" 2>"$out/$label.err"
        local rc=$?
        # every record, without its options object (the summary keeps each
        # figure whole; the JSON file keeps everything)
        say "$label: rc=$rc"
        sed 's/,"options":{[^}]*}//' "$out/$label.json" | cut -c1-1500 | sed 's/^/  /' | tee -a "$summary"
    }
    for c in bls12-381 bn254; do
        b msm_${c}_24 120 msm --backend cuda --curve $c --log-n 24 --group g1 --reps 7
        b msm_${c}_24_tables 150 msm --backend cuda --curve $c --log-n 24 --group g1 --reps 7 --precompute
        b ntt_${c}_24 60 ntt --backend cuda --curve $c --log-n 24
    done
    b msm_bls12-381_g2_22 150 msm --backend cuda --curve bls12-381 --log-n 22 --group g2 --reps 5
    b prove_bn254_24 240 prove --synthetic --backend cuda --curve bn254 --log-n 24 --profile dense --reps 3
    # One-shot CLI proofs (a fresh process each: context, key upload): the
    # break-even that `--backend auto` picks by.
    w=$(mktemp -d)
    for lg in ${BENCH_CLI_LOGS-10 12 14 16 18}; do
        in_budget || break
        "$bd/g16" synth --curve bn254 --log-n $lg --profile dense --out $w/c.r1cs --witness $w/w.wtns --seed 1 >/dev/null 2>&1 &&
        "$bd/g16" setup --insecure-test-setup $w/c.r1cs $w/c.zkey --seed 1 >/dev/null 2>&1 || { say "setup 2^$lg failed"; continue; }
        for be in cpu cuda auto; do
            best=
            for i in 1 2 3; do
                t0=$(date +%s%N)
                "$bd/g16" prove --backend $be --verbose $w/c.zkey $w/w.wtns $w/p.json $w/pub.json >"$out/cli_${lg}_$be.log" 2>&1 || { say "prove 2^$lg $be failed"; break; }
                t=$(( ($(date +%s%N) - t0) / 1000000 ))
                [ -z "$best" ] || [ $t -lt $best ] && best=$t
            done
            say "cli prove bn254 2^$lg $be: best of 3 ${best} ms wall; $(grep -i 'backend' "$out/cli_${lg}_$be.log" | tail -1)"
        done
    done
    rm -rf "$w"
    ;;
job27)
    timeout 560 "$bd/g16" bench engine --curve bls12-381 --log-n 27 --jobs 1 --partitions 10 --backend cuda \
        --workers-per-device 1 --synth-threads 12 --witnesses 1 --timeline "$out/job27.timeline" --json \
        >"$out/job27.json" 2>"$out/job27.err"
    say "job27: rc=$? $(sed 's/,"options":{[^}]*}//' "$out/job27.json" | tail -c 4000)"
    tail -5 "$out/job27.err" | tee -a "$summary"
    ;;
params)
    # PoRep-shaped bellperson partitions on the GPU: the key resident, R
    # proofs, then a 10-partition engine job (PARAMS_LOGS, default "24").
    for lg in ${PARAMS_LOGS:-24}; do
        in_budget || { say "skip params 2^$lg (budget)"; continue; }
        # shellcheck disable=SC2086
        timeout "${PARAMS_TIMEOUT_S:-420}" "$bd/g16" bench params --backend cuda --log-n "$lg" \
            --reps "${PARAMS_REPS:-3}" --partitions 10 --workers-per-device "${PARAMS_WPD:-1}" ${PARAMS_FLAGS:-} \
            --json >"$out/params_$lg.json" 2>"$out/params_$lg.err"
        say "params 2^$lg: rc=$? $(sed 's/,"options":{[^}]*}//' "$out/params_$lg.json" | tail -c 2000)"
        tail -3 "$out/params_$lg.err" | tee -a "$summary"
    done
    ;;
*) echo "gpu-suite: unknown phase $phase" >&2; exit 2 ;;
esac
say "phase $phase: $(( $(date +%s) - start )) s"
