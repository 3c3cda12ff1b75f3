#!/usr/bin/env bash
# Runs HERE (the Debian development machine): assembles the build kit that
# the GPU machine lacks (it has nvcc, cmake and gcc but no GMP or jansson):
# their headers, the static libgmp.a (the tests' GMP) and libjansson.so.4
# (the kit's libjansson.a is not position-independent, so the library links
# jansson dynamically and the binaries find it through LD_LIBRARY_PATH).
#   bash scripts/gpu-kit.sh [KITDIR]      (default .device/kit, git-ignored)
# Carry the folder with the device call (`carry: [".device"]`), then build
# there with scripts/gpu-build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
kit=${1:-.device/kit}
rm -rf "$kit"
mkdir -p "$kit/include" "$kit/lib"
multi=$(gcc -print-multiarch)
for h in gmp.h jansson.h jansson_config.h; do
    f=$(ls /usr/include/"$h" /usr/include/"$multi"/"$h" 2>/dev/null | head -1 || true)
    [ -n "$f" ] || { echo "gpu-kit: $h not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
    cp "$f" "$kit/include/"
done
lib=/usr/lib/$multi
cp "$lib/libgmp.a" "$kit/lib/"
cp -L "$lib/libjansson.so.4" "$kit/lib/libjansson.so.4"
ln -sf libjansson.so.4 "$kit/lib/libjansson.so"
du -sh "$kit"
