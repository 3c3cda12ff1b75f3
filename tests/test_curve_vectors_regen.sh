#!/usr/bin/env bash
# Regenerates the @noble/curves curve vectors into a temporary directory and
# diffs them against the committed tests/vectors/curve_*.txt, so the files
# test_curve_vectors.c checks are known to come from the pinned noble.
# Needs node and `npm ci --prefix tests/js`; fails (not skips) without them.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v node >/dev/null 2>&1; then
    echo "test_curve_vectors_regen.sh: node not found (install nodejs)" >&2
    exit 1
fi
if [ ! -d tests/js/node_modules/@noble/curves ]; then
    echo "test_curve_vectors_regen.sh: tests/js/node_modules missing: run 'npm ci --prefix tests/js'" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
node tests/vectors/gen_curve.mjs "$tmp"
status=0
for f in curve_bn254.txt curve_bls12_381.txt; do
    if ! diff -u "tests/vectors/$f" "$tmp/$f"; then
        echo "test_curve_vectors_regen.sh: $f differs from a fresh generation" >&2
        status=1
    fi
done
[ $status -eq 0 ] && echo "test_curve_vectors_regen.sh: vectors reproduce exactly"
exit $status
