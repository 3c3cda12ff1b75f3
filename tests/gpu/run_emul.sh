#!/bin/bash
# run_emul.sh NAME [ARGS]: compiles tests/gpu/NAME.cpp (host emulation of GPU
# templates) with g++ against $G16_BUILD_DIR's libg16_core.a, with the
# sanitizers when that build has them, and runs it with ARGS. Exit 77 (skipped)
# without g++, or when a CUDA build's static library cannot be linked here.
set -eu
name=${1:?usage: run_emul.sh NAME [ARGS]}
shift
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
if [ -f "$dir/CMakeFiles/g16_obj.dir/src/gpu/synth/synth.cu.o" ]; then
    cuda=1
    cudalib=$(sed -n 's/^CUDAToolkit_LIBRARY_DIR:[A-Z]*=//p' "$dir/CMakeCache.txt" | head -1)
    libs+=(-L"${cudalib:-/usr/local/cuda/lib64}" -lcudart_static -ldl -lrt)
fi
out="$dir/$name"
if ! g++ "${flags[@]}" "tests/gpu/$name.cpp" "$lib" "${libs[@]}" -o "$out"; then
    if [ $cuda = 1 ]; then
        echo "skipped: cannot link the CUDA build's library with g++ here"
        exit 77
    fi
    echo "$name: compile failed"
    exit 1
fi
"$out" "$@"
