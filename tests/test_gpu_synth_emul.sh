#!/bin/bash
# The GPU synthesis kernels' math (src/gpu/synth/synth.cuh) on the host, without a
# GPU: tests/gpu/synth_emul.cpp, built and run by tests/gpu/run_emul.sh.
exec bash "$(dirname "$0")/gpu/run_emul.sh" synth_emul
