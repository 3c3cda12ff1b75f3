#!/usr/bin/env bash
# build_fixtures.sh -- circom/snarkjs interop fixtures for g16's tests.
#
# For each curve and circuit: compile (circom2), compute the witness, make an
# INSECURE known-tau ptau (fast_ptau.mjs), groth16 setup, one deterministic
# contribution (zkey beacon), export the verification key, prove and verify
# with snarkjs. Results are cached: a directory is rebuilt only when the hash
# of its inputs (circuit source, input.json, these scripts, the tool lockfile,
# node's version) changes, so a second run is a no-op.
#
# usage: scripts/interop/build_fixtures.sh [--curves "bn128 bls12381"]
#            [--circuits "multiplier poseidon sha256"] [--cache DIR] [--quiet]
#            [--jobs N]   (N > 1: build the curves in parallel; default nproc)
#   A circuit is a name under examples/ or a directory path; the directory
#   holds <dirname>.circom and input.json.
# env: G16_INTEROP_CACHE (default .cache/interop), G16_JS_DIR (default tests/js),
#      G16_INTEROP_JOBS (default nproc)
# Layout and conventions: docs/interop.md. Run from anywhere; needs
# `npm ci --prefix tests/js` first.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"

CURVES="bn128 bls12381"
CIRCUITS="multiplier poseidon sha256"
CACHE="${G16_INTEROP_CACHE:-.cache/interop}"
JS="${G16_JS_DIR:-tests/js}"
QUIET=0
JOBS="${G16_INTEROP_JOBS:-$(nproc 2>/dev/null || echo 1)}"
while [ $# -gt 0 ]; do
    case "$1" in
        --curves) CURVES="$2"; shift 2 ;;
        --circuits) CIRCUITS="$2"; shift 2 ;;
        --cache) CACHE="$2"; shift 2 ;;
        --quiet) QUIET=1; shift ;;
        --jobs) JOBS="$2"; shift 2 ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "build_fixtures: unknown argument $1" >&2; exit 2 ;;
    esac
done

say() { [ "$QUIET" = 1 ] || echo "build_fixtures: $*" >&2; }
die() { echo "build_fixtures: ERROR: $*" >&2; exit 1; }

command -v node >/dev/null || die "node not found (need node >= 18)"
NM="$JS/node_modules"
SNARKJS="$NM/.bin/snarkjs"
for p in "$SNARKJS" "$NM/circom2" "$NM/circomlib" "$NM/ffjavascript" "$NM/wasmcurves" "$NM/wasmbuilder"; do
    [ -e "$p" ] || die "$p missing: run 'npm ci --prefix $JS'"
done
mkdir -p "$CACHE"
# One build at a time per cache (e.g. ctest in two build trees at once); a
# waiting run then finds the fixtures cached.
if command -v flock >/dev/null; then
    exec 9>"$CACHE/.lock"
    flock 9
fi
# circom2 (WASI) only sees the working directory and its parents through
# relative paths, so hand it paths relative to the repo root.
rel() { realpath -m --relative-to="$REPO" "$1"; }
CACHE_REL="$(rel "$CACHE")"

sha() { sha256sum | cut -c1-64; }
# Everything that determines the fixtures apart from the circuit itself.
TOOLS_KEY="$( { echo "fixtures-v1"; node --version;
    cat "$JS/package-lock.json" scripts/interop/build_fixtures.sh scripts/interop/fast_ptau.mjs; } | sha)"
PTAU_KEY="$( { echo "ptau-v1"; node --version; cat "$JS/package-lock.json" scripts/interop/fast_ptau.mjs; } | sha)"

snarkjs() { node "$SNARKJS" "$@"; }

# run LOG cmd...: append the command's output to LOG; show it on failure.
run() {
    local log="$1"; shift
    echo "+ $*" >>"$log"
    local t0=$SECONDS
    if ! "$@" >>"$log" 2>&1; then
        tail -n 40 "$log" >&2
        die "command failed: $* (full log: $log)"
    fi
    echo "= $((SECONDS - t0)) s: $1 $2 $3" >>"$log"
}

# Smallest power with 2^power >= nConstraints + nPublic + 1 (snarkjs's
# groth16 setup rule), read from the r1cs header (section 1).
r1cs_power() {
    node -e '
const fs = require("fs"); const b = fs.readFileSync(process.argv[1]);
const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
let p = 12; const n = dv.getUint32(8, true);
for (let i = 0; i < n; i++) {
  const id = dv.getUint32(p, true); const size = Number(dv.getBigUint64(p + 4, true));
  if (id === 1) {
    const h = p + 12; const n8 = dv.getUint32(h, true); const o = h + 4 + n8;
    const nOut = dv.getUint32(o + 4, true), nPubIn = dv.getUint32(o + 8, true);
    const nCons = dv.getUint32(o + 24, true);
    const need = nCons + nOut + nPubIn + 1; let pw = 1; while ((1 << pw) < need) pw++;
    console.log(pw); process.exit(0);
  }
  p += 12 + size;
}
process.exit(1);' "$1"
}

# ptau CURVE POWER -> prints the path of a cached prepared ptau.
ptau() {
    local curve="$1" power="$2"
    local f="$CACHE/ptau/$curve/pot$power.ptau"
    if [ -f "$f" ] && [ "$(cat "$f.key" 2>/dev/null)" = "$PTAU_KEY" ]; then
        echo "$f"; return
    fi
    mkdir -p "$CACHE/ptau/$curve"
    rm -f "$f" "$f.key"
    say "  ptau $curve 2^$power (fast_ptau, INSECURE known tau)"
    node scripts/interop/fast_ptau.mjs "$curve" "$power" "$f" 2>>"$CACHE/ptau/$curve/build.log" ||
        die "fast_ptau failed (log: $CACHE/ptau/$curve/build.log)"
    echo "$PTAU_KEY" >"$f.key"
    echo "$f"
}

build_one() {
    local curve="$1" spec="$2" src name
    # a name is examples/<name>; anything with a slash is a directory path
    if [[ "$spec" == */* ]]; then src="${spec%/}"; else src="examples/$spec"; fi
    [ -d "$src" ] || die "no circuit directory $src"
    name="$(basename "$src")"
    [ -f "$src/$name.circom" ] || die "missing $src/$name.circom"
    [ -f "$src/input.json" ] || die "missing $src/input.json"
    local out="$CACHE/$curve/$name"
    local key
    key="$( { echo "$TOOLS_KEY $curve $name"; cat "$src/$name.circom" "$src/input.json"; } | sha)"
    if [ -f "$out/.key" ] && [ "$(cat "$out/.key")" = "$key" ]; then
        say "$curve/$name: cached"
        return
    fi
    say "$curve/$name: building"
    local t0=$SECONDS
    local tmp="$CACHE/$curve/.tmp-$name-$$"
    rm -rf "$tmp"; mkdir -p "$tmp"
    local log="$tmp/build.log"
    : >"$log"
    run "$log" node "$NM/circom2/cli.js" "$(rel "$src/$name.circom")" --r1cs --wasm --prime "$curve" \
        -l "$(rel "$NM")" -o "$(rel "$tmp")"
    mv "$tmp/$name.r1cs" "$tmp/circuit.r1cs"
    mv "$tmp/${name}_js/$name.wasm" "$tmp/circuit.wasm"
    rm -rf "$tmp/${name}_js"
    cp "$src/input.json" "$tmp/input.json"
    run "$log" snarkjs wtns calculate "$tmp/circuit.wasm" "$tmp/input.json" "$tmp/witness.wtns"
    local power pt
    power="$(r1cs_power "$tmp/circuit.r1cs")" || die "cannot read $tmp/circuit.r1cs"
    pt="$(ptau "$curve" "$power")"
    run "$log" snarkjs groth16 setup "$tmp/circuit.r1cs" "$pt" "$tmp/circuit_0000.zkey"
    # One deterministic phase-2 contribution (a beacon: delta != 1, and the
    # same zkey on every machine). `zkey contribute` would mix in OS randomness.
    local beacon
    beacon="$(printf 'g16 interop fixture %s %s' "$curve" "$name" | sha)"
    run "$log" snarkjs zkey beacon "$tmp/circuit_0000.zkey" "$tmp/circuit.zkey" "$beacon" 10 -n="g16 fixture beacon"
    rm -f "$tmp/circuit_0000.zkey"
    run "$log" snarkjs zkey export verificationkey "$tmp/circuit.zkey" "$tmp/vk.json"
    run "$log" snarkjs groth16 prove "$tmp/circuit.zkey" "$tmp/witness.wtns" "$tmp/proof.json" "$tmp/public.json"
    run "$log" snarkjs groth16 verify "$tmp/vk.json" "$tmp/public.json" "$tmp/proof.json"
    grep -q "OK" "$log" || die "snarkjs verify did not say OK ($log)"
    echo "$power" >"$tmp/power"
    echo "$key" >"$tmp/.key"
    rm -rf "$out"
    mv "$tmp" "$out"
    say "$curve/$name: done in $((SECONDS - t0)) s (2^$power)"
}

for curve in $CURVES; do
    case "$curve" in bn128|bls12381) ;; *) die "unknown curve $curve (bn128|bls12381)" ;; esac
done
# The curves are independent (own ptau files and directories): build them
# side by side when there is more than one core, since circom and the witness
# step are single-threaded and snarkjs only partly uses both cores.
pids=()
for curve in $CURVES; do
    if [ "$JOBS" -gt 1 ]; then
        ( for c in $CIRCUITS; do build_one "$curve" "$c"; done ) &
        pids+=($!)
    else
        for c in $CIRCUITS; do build_one "$curve" "$c"; done
    fi
done
status=0
for p in "${pids[@]+"${pids[@]}"}"; do wait "$p" || status=1; done
[ "$status" = 0 ] || die "some fixtures failed (see the messages above)"
say "fixtures in $CACHE_REL"
