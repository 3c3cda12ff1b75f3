#!/bin/bash
# The GPU field and curve templates (src/gpu/ff/field.cuh, src/gpu/ec/curve.cuh) on the
# host, without a GPU, against the CPU layers: tests/gpu/host_emul.cpp,
# built and run by tests/gpu/run_emul.sh.
exec bash "$(dirname "$0")/gpu/run_emul.sh" host_emul
