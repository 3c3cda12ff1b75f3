#!/usr/bin/env bash
# Regenerates the pairing vectors with @noble/curves into a temp dir and
# diffs them against the committed tests/vectors/pairing_*.txt. Fails when
# node or tests/js/node_modules is missing (CI: npm ci --prefix tests/js).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v node >/dev/null || { echo "test_pairing_vectors: node not found" >&2; exit 1; }
[ -d tests/js/node_modules/@noble/curves ] ||
    { echo "test_pairing_vectors: run npm ci --prefix tests/js" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
node tests/vectors/gen_pairing.mjs "$tmp"
for f in pairing_bn254.txt pairing_bls12_381.txt; do
    diff -q "tests/vectors/$f" "$tmp/$f" || { echo "test_pairing_vectors: $f differs" >&2; exit 1; }
    size=$(wc -c < "tests/vectors/$f")
    [ "$size" -lt 200000 ] || { echo "test_pairing_vectors: $f is $size bytes" >&2; exit 1; }
done
echo "test_pairing_vectors: ok"
