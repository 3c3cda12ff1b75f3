#!/usr/bin/env bash
# Carries a GPU build made here (scripts/gpu-build.sh on this machine: nvcc
# compiles sm_90 without a GPU) to the GPU machine instead of building there
# (~8 of the session's device minutes).
# Here:
#   bash scripts/gpu-pack.sh pack BUILDDIR [KITDIR]
#     writes KITDIR/bin.tar.zst (the binaries of scripts/gpu-targets.txt;
#     zstd's long window makes the 14 copies of the library ~9 MB) and
#     KITDIR/bin/zstd with the libraries it needs; carry KITDIR's parent
#     (`carry: [".device"]`).
# On the GPU machine:
#   bash scripts/gpu-pack.sh unpack BUILDDIR [KITDIR]
#     unpacks them into BUILDDIR and checks that g16 starts there (exit 1
#     if it does not: build there with scripts/gpu-build.sh then).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: gpu-pack.sh pack|unpack BUILDDIR [KITDIR]}
bd=${2:?usage: gpu-pack.sh pack|unpack BUILDDIR [KITDIR]}
kit=${3:-.device/kit}
case $mode in
pack)
    mkdir -p "$kit/bin"
    cp /usr/bin/zstd "$kit/bin/"
    for l in $(ldd /usr/bin/zstd | awk '/=>/ {print $3}'); do
        case $(basename "$l") in libc.so*|libm.so*|ld-linux*) ;; *) cp -L "$l" "$kit/lib/" ;; esac
    done
    # shellcheck disable=SC2046
    tar -C "$bd" -cf - $(cat scripts/gpu-targets.txt) | zstd -q --long=28 -T2 -12 -f -o "$kit/bin.tar.zst"
    echo "gpu-pack: $(du -h "$kit/bin.tar.zst" | cut -f1) from $bd (commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo '+dirty'))"
    ;;
unpack)
    export LD_LIBRARY_PATH=$(cd "$kit/lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    mkdir -p "$bd"
    "$kit/bin/zstd" -q -d --long=28 -c "$kit/bin.tar.zst" | tar -C "$bd" -xf -
    if "$bd/g16" --version >/dev/null 2>&1; then
        echo "gpu-pack: unpacked into $bd: $("$bd/g16" --version 2>&1 | head -1)"
    else
        echo "gpu-pack: $bd/g16 does not start here: $("$bd/g16" --version 2>&1 | head -2)" >&2
        exit 1
    fi
    ;;
*) echo "gpu-pack: unknown mode $mode" >&2; exit 2 ;;
esac
