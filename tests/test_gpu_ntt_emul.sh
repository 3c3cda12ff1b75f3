#!/bin/bash
# The GPU NTT's kernels and pass plans (src/gpu/ntt/ntt.cuh) on the host, without
# a GPU, against the CPU's NTT: every kind and order and the H step, both
# curves. First with 2^6-element tiles, so that small sizes take many passes
# (four by 2^15; tests/gpu/ntt_emul_small.cpp, built and run by
# tests/gpu/run_emul.sh), the odd coset's middle passes fused; then with the
# real tiles (tests/gpu/ntt_emul.cpp to 2^15: passes of
# 2^8..2^10 elements).
set -e
bash "$(dirname "$0")/gpu/run_emul.sh" ntt_emul_small 15
bash "$(dirname "$0")/gpu/run_emul.sh" ntt_emul 15
