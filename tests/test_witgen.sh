#!/usr/bin/env bash
# g16 prove --input input.json --witness-gen GEN (docs/witgen.md): the
# witness made by circom's generator from the input, proved, and the proof
# accepted by snarkjs; the generator's failures as clear errors.
#   - the .wasm circom writes (run by node through its generate_witness.js):
#     proofs for two inputs verify with snarkjs, public output a*b;
#   - circom's C++ generator (circom2 --c, built with g++, nasm, GMP and
#     nlohmann-json when they are installed; otherwise said and skipped) on
#     the same input gives the same witness;
#   - an input that does not satisfy the circuit, a non-JSON input, a
#     generator that writes nothing, one that writes garbage: exit 2, the
#     message names the generator and the input (and the generator's own
#     last words); a hanging one is killed at witgen.timeout_s, with its
#     process group; one over witgen.memory_mb fails, and the same one
#     without the limit runs;
#   - the stand-ins (scripts that follow the C++ generator's convention,
#     GEN input.json out.wtns) run in a private 0700 scratch directory
#     that is gone afterwards, also after a kill, and see none of g16's
#     G16* environment variables.
# Needs node and tests/js/node_modules (circom2, snarkjs): FAILS without them.
# env: G16_BIN, G16_INTEROP_CACHE (fixture cache, default .cache/interop)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
G16=${G16_BIN:-build/g16}
fail() { echo "test_witgen: FAIL: $*" >&2; exit 1; }
command -v node >/dev/null || fail "node not found"
NM=tests/js/node_modules
[ -e $NM/circom2/cli.js ] && [ -e $NM/.bin/snarkjs ] || fail "$NM missing: run npm ci --prefix tests/js"
CACHE="${G16_INTEROP_CACHE:-.cache/interop}"
scripts/interop/build_fixtures.sh --quiet --cache "$CACHE" --curves bn128 --circuits multiplier ||
    fail "build_fixtures.sh"
FX=$(cd "$CACHE/bn128/multiplier" && pwd -P)
T=$(mktemp -d "${TMPDIR:-/tmp}/g16-witgen-test.XXXXXX")
T=$(cd "$T" && pwd -P)
trap 'rm -rf "$T"' EXIT
SNARKJS="node $NM/.bin/snarkjs"
n=0
pass() { n=$((n + 1)); }

# circom2 (WASI) sees the working directory's tree through relative paths.
mkdir -p "$T/c"
node $NM/circom2/cli.js examples/multiplier/multiplier.circom --wasm --c --prime bn128 \
    -o "$(realpath --relative-to=. "$T/c")" >"$T/circom.log" 2>&1 || { cat "$T/circom.log"; fail "circom2"; }
WASM=$T/c/multiplier_js/multiplier.wasm
[ -s "$WASM" ] && [ -s "$T/c/multiplier_js/generate_witness.js" ] || fail "circom2 wrote no .wasm generator"
export G16_WITGEN_SCRATCH_DIR=$T/scratch
mkdir -p "$G16_WITGEN_SCRATCH_DIR"
scratch_empty() { [ -z "$(ls -A "$G16_WITGEN_SCRATCH_DIR")" ] || fail "$1: scratch left behind: $(ls -A "$G16_WITGEN_SCRATCH_DIR")"; }

# prove_ok NAME GEN INPUT PUBLIC: proves, snarkjs verifies, public.json is [PUBLIC].
prove_ok() {
    local name=$1 gen=$2 in=$3 want=$4
    rm -f "$T/$name.proof.json" "$T/$name.public.json"
    "$G16" prove --input "$in" --witness-gen "$gen" "$FX/circuit.zkey" "$T/$name.proof.json" "$T/$name.public.json" \
        2>"$T/$name.err" || { cat "$T/$name.err"; fail "$name: g16 prove"; }
    $SNARKJS groth16 verify "$FX/vk.json" "$T/$name.public.json" "$T/$name.proof.json" >"$T/$name.v" 2>&1 ||
        { cat "$T/$name.v"; fail "$name: snarkjs does not verify"; }
    grep -q OK "$T/$name.v" || fail "$name: snarkjs did not say OK"
    [ "$(tr -d ' \n' <"$T/$name.public.json")" = "[\"$want\"]" ] ||
        fail "$name: public.json $(cat "$T/$name.public.json"), expected [\"$want\"]"
    scratch_empty "$name"
    pass
}
# prove_fails NAME GEN INPUT PATTERN...: exit 2, stderr matches every PATTERN.
prove_fails() {
    local name=$1 gen=$2 in=$3 rc=0
    shift 3
    "$G16" prove --input "$in" --witness-gen "$gen" "$FX/circuit.zkey" "$T/x.proof.json" "$T/x.public.json" \
        2>"$T/$name.err" || rc=$?
    [ "$rc" = 2 ] || { cat "$T/$name.err"; fail "$name: exit $rc, expected 2"; }
    for p in "$@"; do
        grep -q -- "$p" "$T/$name.err" || fail "$name: message lacks '$p': $(cat "$T/$name.err")"
    done
    [ ! -e "$T/x.proof.json" ] || fail "$name: a proof was written"
    scratch_empty "$name"
    pass
}

echo '{"a": "3", "b": "11"}' >"$T/in1.json"
echo '{"a": "5", "b": "7"}' >"$T/in2.json"
prove_ok wasm1 "$WASM" "$T/in1.json" 33
prove_ok wasm2 "$WASM" "$T/in2.json" 35
prove_ok pipe "$WASM" <(echo '{"a": "2", "b": "4"}') 8

# Bad inputs and broken generators.
echo '{"a": "3"}' >"$T/missing.json"
prove_fails wasm-missing "$WASM" "$T/missing.json" "witness generator multiplier.wasm failed on missing.json" \
    "exit status 1" "Not all inputs have been set"
echo '{"a": "3", ' >"$T/broken.json"
prove_fails not-json "$WASM" "$T/broken.json" "input .*broken.json is not JSON"
echo '[3, 11]' >"$T/array.json"
prove_fails not-object "$WASM" "$T/array.json" "is not a JSON object"
prove_fails no-input "$WASM" "$T/nonexistent.json" "nonexistent.json"
G16_WITGEN_NODE=/nonexistent/node prove_fails no-node "$WASM" "$T/in1.json" "cannot run /nonexistent/node" "witgen.node"
cp "$WASM" "$T/lonely.wasm"
prove_fails no-js "$T/lonely.wasm" "$T/in1.json" "generate_witness.js"
prove_fails not-exec "$T/in1.json" "$T/in1.json" "neither a circom .wasm nor executable"

# Stand-ins with the C++ generator's convention: GEN input.json out.wtns.
cat >"$T/copy.sh" <<EOF
#!/bin/sh
# records its working directory and that directory's mode, then "generates"
pwd >"$T/copy.cwd"; stat -c %a . >"$T/copy.mode"; env | grep '^G16' >"$T/copy.env"
cp "$FX/witness.wtns" "\$2"
EOF
printf '#!/bin/sh\necho "nothing to see" >&2\nexit 0\n' >"$T/silent.sh"
printf '#!/bin/sh\nhead -c 100 /dev/urandom >"$2"\n' >"$T/garbage.sh"
cat >"$T/hang.sh" <<EOF
#!/bin/sh
echo \$\$ >"$T/hang.pid"
sleep 300 &
echo \$! >"$T/sleep.pid"
wait
EOF
# About 128 MiB of string (and its copies), then the witness.
cat >"$T/hungry.sh" <<EOF
#!/bin/sh
awk 'BEGIN { s = "x"; for (i = 0; i < 27; i++) s = s s; print length(s) }' || exit 3
cp "$FX/witness.wtns" "\$2"
EOF
chmod +x "$T"/*.sh
prove_ok copy "$T/copy.sh" "$T/in1.json" 33
[ "$(cat "$T/copy.mode")" = 700 ] || fail "scratch directory mode $(cat "$T/copy.mode"), expected 700"
case "$(cat "$T/copy.cwd")" in "$G16_WITGEN_SCRATCH_DIR"/g16-witgen-*) ;; *) fail "generator ran in $(cat "$T/copy.cwd")" ;; esac
[ ! -e "$(cat "$T/copy.cwd")" ] || fail "scratch directory still there"
[ ! -s "$T/copy.env" ] || fail "the generator saw g16's variables: $(cat "$T/copy.env")"
prove_fails silent "$T/silent.sh" "$T/in1.json" "silent.sh on in1.json exited 0 but wrote no witness" "nothing to see"
prove_fails garbage "$T/garbage.sh" "$T/in1.json" "garbage.sh on in1.json wrote a bad .wtns"
t0=$(date +%s%N)
G16_WITGEN_TIMEOUT_S=1 prove_fails hang "$T/hang.sh" "$T/in1.json" "hang.sh failed on in1.json: killed at the time limit of 1 s"
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -lt 10000 ] || fail "the hanging generator took $ms ms to be killed"
sleep 0.2
for p in "$(cat "$T/hang.pid")" "$(cat "$T/sleep.pid")"; do # gone, or a zombie not yet reaped by init
    st=$(ps -o stat= -p "$p" 2>/dev/null || true)
    case "$st" in "" | Z*) ;; *) fail "process $p of the hanging generator survived ($st)" ;; esac
done
G16_WITGEN_MEMORY_MB=64 prove_fails memory "$T/hungry.sh" "$T/in1.json" "hungry.sh failed on in1.json" "out of memory"
G16_WITGEN_MEMORY_MB=0 prove_ok hungry-unlimited "$T/hungry.sh" "$T/in1.json" 33
G16_WITGEN_TIMEOUT_S=0 "$G16" prove --input "$T/in1.json" --witness-gen "$WASM" "$FX/circuit.zkey" "$T/y.json" "$T/z.json" \
    2>"$T/opt.err" && fail "witgen.timeout_s = 0 accepted"
grep -q "witgen.timeout_s" "$T/opt.err" || fail "bad option message: $(cat "$T/opt.err")"
pass
rc=0; "$G16" prove --input "$T/in1.json" "$FX/circuit.zkey" "$T/y.json" "$T/z.json" 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "--input without --witness-gen: exit $rc"
pass

# circom's C++ generator, when it can be built here (Debian: g++ nasm libgmp-dev nlohmann-json3-dev).
if command -v g++ >/dev/null && command -v nasm >/dev/null && [ -f /usr/include/nlohmann/json.hpp ] &&
    { [ -f /usr/include/gmp.h ] || [ -f /usr/include/x86_64-linux-gnu/gmp.h ]; }; then
    if (cd "$T/c/multiplier_cpp" && make -s CFLAGS="-std=c++11 -O0 -I." >"$T/make.log" 2>&1); then
        CPP=$T/c/multiplier_cpp/multiplier
        prove_ok cpp1 "$CPP" "$T/in1.json" 33
        prove_fails cpp-missing "$CPP" "$T/missing.json" "witness generator multiplier failed on missing.json" \
            "Not all inputs have been set"
    else
        tail -5 "$T/make.log"
        fail "circom's C++ generator did not build"
    fi
else
    echo "test_witgen: circom's C++ generator not built (needs g++, nasm, libgmp-dev, nlohmann-json3-dev):" \
        "its calling convention is tested with the stand-ins only"
fi
echo "test_witgen: $n checks passed"
