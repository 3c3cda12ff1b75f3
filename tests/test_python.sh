#!/usr/bin/env bash
# The Python package (python/g16, ctypes over libg16.so): installed with
# `pip install --no-build-isolation --no-deps --target TMP ./python` (its
# build backend is python/_build_backend.py, standard library only; without
# pip the package is used from the source tree through PYTHONPATH), then
# tests/python/test_g16.py (unittest) against $G16_BUILD_DIR/libg16.so:
# structure layouts against a C program's sizeof/offsetof, proofs of the
# interop fixtures on both curves checked by g16_verify_json and by snarkjs,
# typed errors (wrong witness, bad files), a 3-partition engine job, proofs
# from input.json through a witness generator (a script, and circom's .wasm
# compiled with circom2 when node is here) and the Solidity exports against
# snarkjs's.
# An ASan build's library is loaded with libasan preloaded (leak checks off:
# the interpreter itself leaks at exit). Skips (77) without python3.
set -uo pipefail
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
src=$(cd "$(dirname "$0")/.." && pwd)
build=${G16_BUILD_DIR:-$src/build}
lib=$build/libg16.so
[ -f "$lib" ] || { echo "FAIL: $lib missing (build the g16_shared target)"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/g16-python.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Install the package into a target folder, from a copy of python/ (pip
# writes build/ and *.egg-info next to the sources).
cp -r "$src/python" "$tmp/src"
rm -rf "$tmp/src/build" "$tmp/src"/*.egg-info
if python3 -c 'import pip' 2>/dev/null &&
   python3 -m pip install --no-build-isolation --no-deps --no-index --quiet --disable-pip-version-check \
       --target "$tmp/site" "$tmp/src" >"$tmp/pip.log" 2>&1; then
    export PYTHONPATH=$tmp/site
    echo "test_python: package installed with pip into $tmp/site"
else
    [ -f "$tmp/pip.log" ] && tail -5 "$tmp/pip.log"
    export PYTHONPATH=$src/python
    echo "test_python: pip unavailable or failing: using PYTHONPATH=$PYTHONPATH"
fi
export G16_LIBRARY=$lib
export G16_PY_SRC=$src G16_PY_TMP=$tmp
export G16_INTEROP_CACHE=${G16_INTEROP_CACHE:-$src/.cache/interop}
if readelf -d "$lib" 2>/dev/null | grep -q 'libasan'; then
    asan=$(${CC:-cc} -print-file-name=libasan.so)
    export LD_PRELOAD=$asan
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
fi
export PYTHONDONTWRITEBYTECODE=1
cd "$tmp"
python3 "$src/tests/python/test_g16.py"
