#!/usr/bin/env bash
# The bellperson toy key: regenerates tests/vectors/params_toy.* with the
# pinned @noble/curves (tests/vectors/gen_params.mjs) and diffs them against
# the committed files that test_params.c reads, then checks `g16 info` on
# the .params and the .vk (counts, sizes, the same vk digest) and on damaged
# copies (a typed error naming the array, exit 2). Needs node and
# `npm ci --prefix tests/js`; fails (not skips) without them.
set -euo pipefail
cd "$(dirname "$0")/.."
G16_BIN=${G16_BIN:-build/g16}
if ! command -v node >/dev/null 2>&1; then
    echo "test_params_cli.sh: node not found (install nodejs)" >&2
    exit 1
fi
if [ ! -d tests/js/node_modules/@noble/curves ]; then
    echo "test_params_cli.sh: tests/js/node_modules missing: run 'npm ci --prefix tests/js'" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
node tests/vectors/gen_params.mjs "$tmp"
for f in params_toy.params params_toy.vk params_toy.txt params_toy.proof params_toy.assignment \
         params_toy.r1cs params_toy.wtns; do
    if ! cmp "tests/vectors/$f" "$tmp/$f"; then
        echo "test_params_cli.sh: $f differs from a fresh generation" >&2
        exit 1
    fi
done
fail() { echo "test_params_cli.sh: $*" >&2; exit 1; }

"$G16_BIN" info tests/vectors/params_toy.params >"$tmp/p.txt"
"$G16_BIN" info tests/vectors/params_toy.vk >"$tmp/v.txt"
for want in "ic: 2 points" "h: 7 points" "l: 4 points" "a: 5 points" "b_g1: 2 points" "b_g2: 2 points" \
            "domain: 8" "public inputs: 1" "size: 3192 bytes" "vk: 1060 bytes"; do
    grep -qF "$want" "$tmp/p.txt" || fail "info .params lacks '$want'"
done
grep -qF "size: 1060 bytes" "$tmp/v.txt" || fail "info .vk lacks its size"
dp=$(grep '^vk:' "$tmp/p.txt" | awk '{print $NF}')
dv=$(grep '^vk:' "$tmp/v.txt" | awk '{print $NF}')
[ -n "$dp" ] && [ "$dp" = "$dv" ] || fail "vk digests differ: '$dp' '$dv'"
# the digest is BLAKE2b-256 of the .vk file's bytes
if command -v b2sum >/dev/null 2>&1; then
    [ "$(b2sum -l 256 tests/vectors/params_toy.vk | cut -d' ' -f1)" = "$dp" ] || fail "digest is not BLAKE2b-256 of the vk"
fi

# damaged copies: exit 2 and a typed error naming the fault
cp tests/vectors/params_toy.vk "$tmp/bad.vk"
printf '\xff\xff\xff\xff' | dd of="$tmp/bad.vk" bs=1 seek=864 conv=notrunc status=none
set +e
"$G16_BIN" info "$tmp/bad.vk" >/dev/null 2>"$tmp/err.txt"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q "ic declares 4294967295 points.*TRUNCATED\|ic declares 4294967295 points" "$tmp/err.txt" \
    || fail "info on an overflowing ic count: rc $rc, $(cat "$tmp/err.txt")"
cp tests/vectors/params_toy.vk "$tmp/bad2.vk"
# ic[1]'s last byte (y's low byte) changed: off the curve
printf '\x00' | dd of="$tmp/bad2.vk" bs=1 seek=1059 conv=notrunc status=none
set +e
"$G16_BIN" info "$tmp/bad2.vk" >/dev/null 2>"$tmp/err.txt"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q "ic\[1\]: not on curve" "$tmp/err.txt" || fail "info on ic[1] off the curve: rc $rc, $(cat "$tmp/err.txt")"
head -c 2000 tests/vectors/params_toy.params >"$tmp/cut.params"
set +e
"$G16_BIN" info "$tmp/cut.params" >/dev/null 2>"$tmp/err.txt"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q "truncated\|TRUNCATED\|remain" "$tmp/err.txt" || fail "info on a cut .params: rc $rc, $(cat "$tmp/err.txt")"
echo "test_params_cli.sh: vectors reproduce exactly; g16 info ok"
