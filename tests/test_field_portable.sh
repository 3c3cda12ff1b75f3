#!/bin/bash
# Runs the field tests with the asm dispatch turned off (G16_FIELD_ASM=0), so
# the portable path is exercised end to end even on a CPU with BMI2+ADX; and,
# with MULX/ADX on but the AVX-512 IFMA batches off (G16_FIELD_ASM=noifma),
# the IFMA test, the MSM test and the NTT test, so that the MSM's scalar
# batch-affine flush and the NTT's scalar products are tested on a CPU that
# has IFMA (where they are not the default).
set -eu
dir=${G16_BUILD_DIR:?G16_BUILD_DIR not set}
for t in test_field_gmp test_field_asm test_field_ifma test_msm test_ntt; do
    [ -x "$dir/$t" ] || { echo "missing $dir/$t"; exit 1; }
done
for t in test_field_gmp test_field_asm test_field_ifma; do
    G16_FIELD_ASM=0 "$dir/$t"
done
G16_FIELD_ASM=noifma "$dir/test_field_ifma"
G16_FIELD_ASM=noifma "$dir/test_msm"
G16_FIELD_ASM=noifma "$dir/test_ntt"
