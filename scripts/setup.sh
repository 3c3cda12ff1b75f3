#!/usr/bin/env bash
# The main job: install dependencies, build the release binaries, then run
# the bundled example (see README).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
build/g16 selfcheck
