#!/usr/bin/env bash
# librapidsnark_g16 (compat/rapidsnark, docs/rapidsnark.md): rapidsnark's
# prover.h / verifier.h C ABI. The program tests/rapidsnark_abi.c, written
# against those headers only, proves the interop fixtures of both curves
# (all three on BN254, multiplier and poseidon on BLS12-381) from a file,
# from memory and through prover objects, checks the short
# buffer, bad witness and bad key codes and the verifier; each proof it
# writes is checked here to be in rapidsnark's compact JSON layout and
# verified by snarkjs. Also: the library exports rapidsnark's names only, and
# its source includes no header of the library but include/g16.h.
# Needs $G16_INTEROP_CACHE (the fixtures), node and snarkjs; else exit 77.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${G16_BUILD_DIR:-build}
prog=$build/rapidsnark_abi
so=$build/librapidsnark_g16.so
snarkjs=tests/js/node_modules/.bin/snarkjs
cache=${G16_INTEROP_CACHE:-.cache/interop}
command -v node >/dev/null && [ -x "$snarkjs" ] || { echo "skipped: node/snarkjs missing"; exit 77; }
[ -f "$cache/bn128/multiplier/circuit.zkey" ] || { echo "skipped: no interop fixtures in $cache"; exit 77; }
[ -x "$prog" ] && [ -f "$so" ] || { echo "FAIL: $prog or $so missing (build the rapidsnark_abi target)"; exit 1; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }

pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Exported dynamic symbols: exactly rapidsnark's ten functions.
want="groth16_proof_size groth16_prover groth16_prover_create groth16_prover_create_zkey_file
groth16_prover_destroy groth16_prover_prove groth16_prover_zkey_file groth16_public_size_for_zkey_buf
groth16_public_size_for_zkey_file groth16_verify"
got=$(nm -D --defined-only "$so" | awk '$2 ~ /[TtDdBbRrVvWw]/ {print $3}' | grep -v '^_' | sort | tr '\n' ' ')
if [ "$got" = "$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ')" ]; then ok; else bad "exports: $got"; fi
# The compat source uses the public API only.
incs=$(grep -hoE '^\s*#\s*include\s*"[^"]+"' compat/rapidsnark/*.c compat/rapidsnark/include/*.h \
       compat/rapidsnark/include/rapidsnark/*.h | grep -oE '"[^"]+"' | sort -u | tr '\n' ' ')
if [ "$incs" = '"g16.h" "rapidsnark/prover.h" "rapidsnark/verifier.h" ' ]; then ok; else bad "compat includes: $incs"; fi

# rapidsnark's layout: compact JSON, keys pi_a, pi_b, pi_c, protocol in that
# order, decimal strings, projective "1" / ["1","0"]; public: a compact array.
layout() {
python3 - "$1" "$2" <<'PY'
import json, re, sys
proof, pub = open(sys.argv[1]).read(), open(sys.argv[2]).read()
n = r'"(?:0|[1-9][0-9]*)"'
form = (r'\{"pi_a":\[N,N,"1"\],"pi_b":\[\[N,N\],\[N,N\],\["1","0"\]\],"pi_c":\[N,N,"1"\],"protocol":"groth16"\}'
        .replace("N", n))
assert re.fullmatch(form, proof), proof
assert re.fullmatch(r'\[' + n + r'(?:,' + n + r')*\]', pub), pub
assert json.loads(pub) == json.loads(open(sys.argv[3] if len(sys.argv) > 3 else sys.argv[2]).read())
PY
}

for curve in bn128 bls12381; do
    other=$([ $curve = bn128 ] && echo bls12381 || echo bn128)
    # sha256 on BN254 only (BLS12-381's adds ~20 s under the sanitizers)
    for circ in multiplier poseidon $([ $curve = bn128 ] && echo sha256); do
        d=$cache/$curve/$circ
        [ -f "$d/circuit.zkey" ] || { bad "$d: fixture missing"; continue; }
        # a witness of another length: another circuit of the same curve
        olen=$cache/$curve/$([ $circ = multiplier ] && echo poseidon || echo multiplier)/witness.wtns
        ocurve=$cache/$other/$circ/witness.wtns
        [ -f "$ocurve" ] || ocurve=-
        out=$tmp/$curve-$circ; mkdir -p "$out"
        t0=$(date +%s.%N)
        if "$prog" "$d/circuit.zkey" "$d/witness.wtns" "$d/vk.json" "$out" "$olen" "$ocurve" >"$out/log" 2>&1; then ok
        else bad "$curve/$circ: the program failed:"; grep -E 'FAIL|passed' "$out/log"; fi
        echo "$curve/$circ: $(tail -1 "$out/log") ($(python3 -c "import sys; print(f'{float(sys.argv[2])-float(sys.argv[1]):.1f}')" $t0 $(date +%s.%N)) s)"
        npub=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$d/public.json")
        if grep -qx "public_size $((npub * 82 + 4))" "$out/log"; then ok; else bad "$curve/$circ: public_size is not 82 x $npub + 4"; fi
        for m in mem file obj objfile; do
            p=$out/proof_$m.json; u=$out/public_$m.json
            [ -f "$p" ] || { bad "$curve/$circ/$m: no proof"; continue; }
            if layout "$p" "$u" "$d/public.json" 2>"$out/layout.err"; then ok; else bad "$curve/$circ/$m: layout: $(tail -1 "$out/layout.err")"; fi
            if node "$snarkjs" groth16 verify "$d/vk.json" "$u" "$p" 2>&1 | grep -q "OK"; then ok
            else bad "$curve/$circ/$m: snarkjs does not verify the proof"; fi
        done
    done
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
