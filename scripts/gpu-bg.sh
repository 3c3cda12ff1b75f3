#!/usr/bin/env bash
# Runs ON the GPU machine: a command that outlasts one device call (each
# call ends at 600 s; a process in its own session lives on while the
# machine stays warm, i.e. while the next call follows within its idle
# time).
#   bash scripts/gpu-bg.sh start NAME COMMAND...   starts it (setsid) with
#        stdout and stderr in /tmp/g16-bg/NAME/{out,err}; returns at once
#   bash scripts/gpu-bg.sh wait NAME OUTDIR SECONDS
#        waits up to SECONDS for it to end, copies its out, err and rc
#        (when done) to OUTDIR/NAME.{out,err,rc}; exit 0 when it has ended,
#        3 while it still runs
set -u
verb=${1:?usage: gpu-bg.sh start NAME CMD... | wait NAME OUTDIR SECONDS}
name=${2:?usage}
dir=/tmp/g16-bg/$name
case $verb in
start)
    shift 2
    mkdir -p "$dir"
    rm -f "$dir/rc"
    setsid bash -c '"$@" >"$0/out" 2>"$0/err" </dev/null; echo $? >"$0/rc"' "$dir" "$@" </dev/null >/dev/null 2>&1 &
    echo "gpu-bg: started $name (pid $!)"
    ;;
wait)
    out=${3:?usage}; lim=${4:?usage}
    mkdir -p "$out"
    t0=$(date +%s)
    while [ ! -f "$dir/rc" ] && [ $(( $(date +%s) - t0 )) -lt "$lim" ]; do sleep 2; done
    for f in out err rc; do [ -f "$dir/$f" ] && cp "$dir/$f" "$out/$name.$f"; done
    if [ -f "$dir/rc" ]; then
        echo "gpu-bg: $name ended rc=$(cat "$dir/rc") after waiting $(( $(date +%s) - t0 )) s"
        exit 0
    fi
    echo "gpu-bg: $name still running after $lim s; last err: $(tail -c 300 "$dir/err" 2>/dev/null)"
    exit 3
    ;;
*) echo "gpu-bg: unknown verb $verb" >&2; exit 2 ;;
esac
