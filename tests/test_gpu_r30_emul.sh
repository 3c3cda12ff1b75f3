#!/bin/bash
# The experimental radix-2^30 product (src/gpu/field_r30.cuh) on the host, without a
# GPU: compiles tests/gpu/r30_emul.cpp with g++ against this build's
# libg16_core.a (with the sanitizers when the build has them) and runs it.
# Skips (77) without g++ or when a CUDA build's static library cannot be
# linked here.
set -eu
dir=${G16_BUILD_DIR:?G16_BUILD_DIR not set}
lib="$dir/libg16_core.a"
[ -f "$lib" ] || { echo "missing $lib"; exit 1; }
command -v g++ >/dev/null || { echo "skipped: no g++"; exit 77; }
flags=(-O2 -std=c++17 -Wall -Wextra -Werror -Iinclude -Isrc)
libs=(-ljansson -lpthread -lm)
if grep -q '^G16_SANITIZE:BOOL=ON' "$dir/CMakeCache.txt" 2>/dev/null; then
    flags+=(-O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
fi
cuda=0
if [ -f "$dir/CMakeFiles/g16_obj.dir/src/gpu/synth.cu.o" ]; then
    cuda=1
    cudalib=$(sed -n 's/^CUDAToolkit_LIBRARY_DIR:[A-Z]*=//p' "$dir/CMakeCache.txt" | head -1)
    libs+=(-L"${cudalib:-/usr/local/cuda/lib64}" -lcudart_static -ldl -lrt)
fi
out="$dir/r30_emul"
if ! g++ "${flags[@]}" tests/gpu/r30_emul.cpp "$lib" "${libs[@]}" -o "$out"; then
    if [ $cuda = 1 ]; then
        echo "skipped: cannot link the CUDA build's library with g++ here"
        exit 77
    fi
    echo "r30_emul: compile failed"
    exit 1
fi
"$out"
