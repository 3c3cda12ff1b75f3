#!/bin/bash
# The experimental radix-2^30 arithmetic (src/gpu/field_r30.cuh) on the host,
# without a GPU: tests/gpu/r30_emul.cpp, built and run by tests/gpu/run_emul.sh.
exec bash "$(dirname "$0")/gpu/run_emul.sh" r30_emul
