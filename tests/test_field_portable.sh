#!/bin/bash
# Runs the field tests with the asm dispatch turned off (G16_FIELD_ASM=0), so
# the portable path is exercised end to end even on a CPU with BMI2+ADX.
set -eu
dir=${G16_BUILD_DIR:?G16_BUILD_DIR not set}
for t in test_field_gmp test_field_asm test_field_ifma; do
    [ -x "$dir/$t" ] || { echo "missing $dir/$t"; exit 1; }
    G16_FIELD_ASM=0 "$dir/$t"
done
