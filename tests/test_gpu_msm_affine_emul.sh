#!/bin/bash
# The GPU MSM's batch-affine rounds (src/gpu/msm/msm_affine.cuh) on the host,
# without a GPU: tests/gpu/msm_affine_emul.cpp, built and run by
# tests/gpu/run_emul.sh.
exec bash "$(dirname "$0")/gpu/run_emul.sh" msm_affine_emul
