#!/usr/bin/env bash
# Byte-for-byte interop of the groth16 layer's writers with snarkjs 0.7.6:
#   - verification_key.json: g16_vk_json_str of a synthetic zkey vs
#     `snarkjs zkey export verificationkey` of the same zkey (checks the
#     layout, the decimal encoding and vk_alphabeta_12 = e(alpha, beta));
#   - a .wtns written by hand vs `snarkjs wtns export json` (values, layout);
#   - proof.json / public.json: re-serialized by snarkjs's own writer
#     (bfj.write(..., {space: 1}), as in snarkjs's cli) must be unchanged.
# The files come from test_formats (G16_FORMATS_OUT). Skips (77) without node
# or tests/js/node_modules (npm ci --prefix tests/js).
set -euo pipefail
B=${G16_BUILD_DIR:-build}
NM=tests/js/node_modules
S=$NM/.bin/snarkjs
if ! command -v node >/dev/null || [ ! -x "$S" ] || [ ! -x "$B/test_formats" ]; then
  echo "skip: need node, $S and $B/test_formats"; exit 77
fi
OUT=$(mktemp -d /tmp/g16_fmtjson.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
G16_FORMATS_OUT=$OUT "$B/test_formats" >/dev/null
fail=0
for c in bn254 bls381; do
  "$S" zkey export verificationkey "$OUT/${c}_vk.zkey" "$OUT/${c}_vk.snarkjs.json" >/dev/null
  if cmp -s "$OUT/${c}_vk.json" "$OUT/${c}_vk.snarkjs.json"; then echo "ok: $c verification_key.json == snarkjs"
  else echo "FAIL: $c verification_key.json differs from snarkjs"; diff "$OUT/${c}_vk.json" "$OUT/${c}_vk.snarkjs.json" | head -20; fail=1; fi
done
for c in bn128 bls12381; do
  "$S" wtns export json "$OUT/$c.wtns" "$OUT/${c}_wtns.snarkjs.json" >/dev/null
  if cmp -s "$OUT/${c}_wtns.json" "$OUT/${c}_wtns.snarkjs.json"; then echo "ok: $c wtns values == snarkjs"
  else echo "FAIL: $c wtns export differs"; fail=1; fi
done
cat > "$OUT/rewrite.cjs" <<'JS'
const bfj = require(process.argv[2]);
const fs = require('fs');
(async () => {
  for (const f of process.argv.slice(3)) {
    const obj = JSON.parse(fs.readFileSync(f, 'utf8'));
    await bfj.write(f + '.bfj', obj, {space: 1});
  }
})().catch(e => { console.error(e); process.exit(1); });
JS
files=$(ls "$OUT"/*_proof*.json "$OUT"/*_public*.json)
node "$OUT/rewrite.cjs" "$PWD/$NM/bfj" $files
for f in $files; do
  if cmp -s "$f" "$f.bfj"; then echo "ok: $(basename "$f") == snarkjs's writer"
  else echo "FAIL: $(basename "$f") differs from snarkjs's writer"; fail=1; fi
done
exit $fail
