#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 and
# -fsanitize=fuzzer,address,undefined, linking the library's sources directly,
# and runs each for about 20 s: the point and field decoders
# (tests/fuzz/fuzz_decode.c) from valid encodings (tests/vectors), and the
# file readers (tests/fuzz/fuzz_formats.c: .zkey, .wtns, .r1cs, proof.json,
# public.json, verification_key.json, .assignment) from small valid files of
# both curves made with $G16_BIN (synth, setup, prove) and the toy partition. Fails with a clear message if
# clang-14 or its libFuzzer runtime (Debian package libclang-rt-14-dev) is
# missing.
set -euo pipefail
cd "$(dirname "$0")/.."
CC=${G16_FUZZ_CC:-clang-14}
SECONDS_TOTAL=${G16_FUZZ_SECONDS:-20}
if ! command -v "$CC" >/dev/null 2>&1; then
    echo "test_fuzz_smoke.sh: $CC not found: apt-get install clang-14 libclang-rt-14-dev" >&2
    exit 1
fi
out=${G16_BUILD_DIR:-build}/fuzz
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Is the libFuzzer runtime there?
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' > "$work/probe.c"
if ! "$CC" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" 2>"$work/probe.log"; then
    cat "$work/probe.log" >&2
    echo "test_fuzz_smoke.sh: $CC cannot link -fsanitize=fuzzer: the libFuzzer runtime is missing;" \
         "install the Debian package libclang-rt-14-dev (apt-get install libclang-rt-14-dev)" >&2
    exit 1
fi

"$CC" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -Wall -Wextra -Werror -std=gnu11 -DG16_NO_NONNULL=1 -Iinclude -Isrc \
    src/util/*.c src/field/*.c src/curve/*.c tests/fuzz/fuzz_decode.c \
    -ljansson -lpthread -lm -o "$out/fuzz_decode"

# Seed corpus: selector byte + valid encodings from the committed vectors.
mkdir -p "$work/corpus"
python3 - "$work/corpus" <<'PY'
import sys, os
out = sys.argv[1]
i = 0
def put(sel, data):
    global i
    with open(os.path.join(out, "seed%03d" % i), "wb") as f:
        f.write(bytes([sel]) + data)
    i += 1
for line in open("tests/vectors/curve_bls12_381.txt"):
    t = line.split()
    if t and t[0] in ("zc", "nosubzc"):
        sel = 8 if t[1] == "g1" else 9
        for h in t[-2:]:
            put(sel, bytes.fromhex(h))
for sel, s in ((10, b"21888242871839275222246405745257275088696311157297823662689037894645226208582"),
               (11, b"0"), (12, b"4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559786"),
               (13, b"12345678901234567890")):
    put(sel, s)
for sel, n in ((0, 64), (2, 128), (4, 96), (6, 192)):
    put(sel, bytes(n))
PY

"$out/fuzz_decode" -max_total_time="$SECONDS_TOTAL" -max_len=400 -timeout=10 \
    -print_final_stats=1 "$work/corpus" 2>&1 | tail -n 15
echo "test_fuzz_smoke.sh: fuzz_decode: no crash in ${SECONDS_TOTAL} s"

# The file readers, seeded with a 2^3 circuit's files of each curve.
"$CC" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -Wall -Wextra -Werror -std=gnu11 -DG16_NO_NONNULL=1 -Iinclude -Isrc \
    src/util/*.c src/field/*.c src/curve/*.c src/pairing/*.c src/formats/binfile.c src/formats/zkey.c \
    src/formats/wtns_r1cs.c src/formats/json.c src/groth16/assignment.c tests/fuzz/fuzz_formats.c \
    -ljansson -lpthread -lm -o "$out/fuzz_formats"
G16=${G16_BIN:-${G16_BUILD_DIR:-build}/g16}
mkdir -p "$work/fcorpus"
i=0
seed() { # seed SELECTOR FILE
    { printf "\\$(printf %03o "$1")"; cat "$2"; } >"$work/fcorpus/seed$i"
    i=$((i + 1))
}
for curve in bn254 bls12-381; do
    d="$work/$curve"
    mkdir -p "$d"
    "$G16" synth --curve $curve --log-n 3 --profile dense --out "$d/c.r1cs" --witness "$d/w.wtns" >/dev/null
    "$G16" setup --insecure-test-setup --curve $curve "$d/c.r1cs" "$d/c.zkey" --vk "$d/vk.json" >/dev/null
    "$G16" prove "$d/c.zkey" "$d/w.wtns" "$d/proof.json" "$d/public.json" >/dev/null
    pub=6; [ $curve = bn254 ] || pub=7
    seed 0 "$d/c.zkey"; seed 1 "$d/w.wtns"; seed 2 "$d/c.r1cs"
    seed 3 "$d/proof.json"; seed $pub "$d/public.json"; seed 8 "$d/vk.json"
done
seed 11 tests/vectors/params_toy.assignment
"$out/fuzz_formats" -max_total_time="$SECONDS_TOTAL" -max_len=8000 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$work/fcorpus" 2>&1 | tail -n 8
echo "test_fuzz_smoke.sh: fuzz_formats: no crash in ${SECONDS_TOTAL} s"
