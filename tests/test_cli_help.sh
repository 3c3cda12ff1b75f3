#!/usr/bin/env bash
# The CLI's conventions (docs/cli.md): help in every form (`g16`, --help, -h,
# `g16 help [COMMAND]`, `COMMAND --help`), every listed option accepted,
# `--opt value` = `--opt=value`, short options, --version's fields, the
# nearest command or option suggested, the man pages (g16.1, g16d.8) equal
# to the programs' --man output and rendered by `man -l` without warnings,
# and the naming fixes: proof-<i>.json from `prove --batch` and
# `g16 client`, --out-dir created (or why not), curves printed as bn254 /
# bls12-381 (by g16 info and g16d), `g16 info` on JSON files, the hint of
# `g16 client` when nothing listens. The daemon parts skip without g16d.
set -uo pipefail
G16=${G16_BIN:-build/g16}
G16D=${G16D_BIN:-}
BUILD=${G16_BUILD_DIR:-build}
[ -x "$G16" ] || { echo "SKIP: $G16 not built"; exit 77; }
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/g16-cli-help.XXXXXX")
DPID=
trap '[ -n "$DPID" ] && kill -9 $DPID 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
# run OUT RC_EXPECTED cmd...: stdout+stderr into $tmp/OUT, checks the exit status.
run() {
    local out=$1 want=$2; shift 2
    "$@" >"$tmp/$out" 2>&1; local rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "exit $rc (want $want): $*"; sed 's/^/  /' "$tmp/$out" | head -8; fi
}
has() { # has FILE TEXT WHAT
    if grep -qF -- "$2" "$tmp/$1"; then ok; else bad "$3: no '$2' in"; sed 's/^/  /' "$tmp/$1" | head -8; fi
}
lacks() {
    if grep -qF -- "$2" "$tmp/$1"; then bad "$3: '$2' in"; sed 's/^/  /' "$tmp/$1" | head -8; else ok; fi
}
ex=$src/examples/poseidon/bn128
commands="prove verify info zkey setup synth client bench selfcheck options help"

echo "== help forms"
run bare 2 "$G16"
has bare "usage: g16 COMMAND" "g16 alone"
for form in --help -h help; do
    run top 0 "$G16" $form
    for c in $commands; do has top "  $c " "g16 $form lists $c"; done
    has top "Example:" "g16 $form"
done
for c in $commands; do
    [ $c = client ] && ! "$G16" client --help >/dev/null 2>&1 && continue # a build without the daemon
    run h1 0 "$G16" $c --help
    run h2 0 "$G16" help $c
    cmp -s "$tmp/h1" "$tmp/h2" && ok || bad "g16 $c --help differs from g16 help $c"
    has h1 "usage: g16 $c" "$c --help"
    has h1 "Example:" "$c --help"
    has h1 "-h, --help" "$c --help"
    # Every listed option is one the command accepts (it may then fail for
    # want of operands, but never as an unknown option).
    for o in $(grep -oE '^  (-[a-zA-Z], )?--[a-z][a-z0-9-]*' "$tmp/h1" | grep -oE -- '--[a-z0-9-]+' | sort -u); do
        [ "$o" = --help ] && continue
        "$G16" $c $o x y z >"$tmp/o" 2>&1 </dev/null
        if grep -q "unknown option\|ambiguous option" "$tmp/o"; then bad "$c: listed option $o rejected"; head -3 "$tmp/o"; else ok; fi
    done
done
run h3 0 "$G16" help zkey export-vk
has h3 "usage: g16 zkey export-vk" "help zkey export-vk"
run h3 0 "$G16" zkey export-vk --help
has h3 "usage: g16 zkey export-vk" "zkey export-vk --help"
if "$G16" client --help >/dev/null 2>&1; then
    for s in "keys add" "keys list" "keys rm" submit wait job cancel status metrics health; do
        run h4 0 "$G16" help client $s
        has h4 "usage: g16 client $s" "help client $s"
    done
    run h5 0 "$G16" client submit --help
    has h5 "--idempotency-key" "client submit --help"
    has h5 "Example:" "client submit --help"
fi

echo "== --version"
version=$(sed -n 's/^project(g16 VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
run ver 0 "$G16" --version
grep -qx "g16 $version" "$tmp/ver" && ok || bad "--version: no line 'g16 $version'"
grep -qE '^commit: ([0-9a-f]{7,40}(\+dirty)?|unknown)$' "$tmp/ver" && ok || bad "--version: commit line"
grep -qE '^cuda: (built in \(.*\)|not built in)$' "$tmp/ver" && ok || bad "--version: cuda line"
grep -qE '^gpus: [0-9]+$' "$tmp/ver" && ok || bad "--version: gpus line"
n=$(sed -n 's/^gpus: //p' "$tmp/ver")
[ "$(grep -c '^gpu [0-9]*: ' "$tmp/ver")" = "${n:-x}" ] && ok || bad "--version: one 'gpu N:' line per GPU"
# In a checkout the commit is one of the repository's (the build's HEAD,
# which may be older than the HEAD of now).
if command -v git >/dev/null && git -C "$src" rev-parse HEAD >/dev/null 2>&1; then
    c=$(sed -n 's/^commit: \([0-9a-f]*\).*/\1/p' "$tmp/ver")
    [ -n "$c" ] && git -C "$src" cat-file -e "$c^{commit}" 2>/dev/null && ok || bad "--version: '$c' is no commit of $src"
fi
run ver2 0 "$G16" -V
cmp -s "$tmp/ver" "$tmp/ver2" && ok || bad "-V differs from --version"

echo "== suggestions"
run s1 2 "$G16" porve a b c d
has s1 "did you mean 'prove'" "unknown command"
run s2 2 "$G16" prove --verbsoe a b c d
has s2 "did you mean '--verbose'" "unknown option"
has s2 "Try 'g16 prove --help'" "unknown option"
run s3 2 "$G16" setup --insecure-test-setpu a b
has s3 "did you mean '--insecure-test-setup'" "unknown setup option"
run s4 2 "$G16" zkey exprot-vk a b
has s4 "did you mean 'export-vk'" "unknown zkey command"
echo "== zkey export verificationkey (snarkjs's spelling of zkey export-vk)"
run v1 0 "$G16" zkey export-vk "$ex/circuit.zkey" "$tmp/vk1.json"
run v2 0 "$G16" zkey export verificationkey "$ex/circuit.zkey" "$tmp/vk2.json"
cmp -s "$tmp/vk1.json" "$tmp/vk2.json" && ok || bad "zkey export verificationkey differs from export-vk"
cmp -s "$tmp/vk2.json" "$ex/verification_key.json" && ok || bad "zkey export verificationkey differs from snarkjs's"
mkdir -p "$tmp/vkd" && cp "$ex/circuit.zkey" "$tmp/vkd/circuit_final.zkey"
(cd "$tmp/vkd" && "$G16" zkey export verificationkey >"$tmp/v3" 2>&1) && ok || bad "verificationkey with snarkjs's defaults"
cmp -s "$tmp/vkd/verification_key.json" "$ex/verification_key.json" && ok || bad "verificationkey defaults: wrong output"
run v4 2 "$G16" zkey export verificationkey a b c
has v4 "at most 2 operands" "verificationkey with 3 operands"
run v5 0 "$G16" zkey export verificationkey --help
has v5 "zkey export verificationkey" "verificationkey --help"
run v6 0 "$G16" zkey export --help
has v6 "verificationkey" "zkey export --help"
run v7 0 "$G16" help zkey export
has v7 "verificationkey [circuit_final.zkey]" "help zkey export"
run s5 2 "$G16" bench mms
has s5 "did you mean 'msm'" "unknown bench"
run s6 2 "$G16" --verison
has s6 "did you mean '--version'" "unknown top option"
run s7 2 "$G16" prove --backend
has s7 "needs a value" "missing value"
if "$G16" client --help >/dev/null 2>&1; then
    run s8 2 "$G16" client stauts
    has s8 "did you mean 'status'" "unknown client command"
fi
if [ -n "$G16D" ] && [ -x "$G16D" ]; then
    run s9 2 "$G16D" --workrs 2
    has s9 "did you mean '--workers'" "g16d unknown option"
fi

echo "== --opt value, --opt=value, short options"
"$G16" synth --curve bn254 --log-n 5 --seed 7 --out "$tmp/a.r1cs" --witness "$tmp/a.wtns" >/dev/null 2>&1 &&
"$G16" synth --curve=bn254 --log-n=5 --seed=7 --out="$tmp/b.r1cs" --witness="$tmp/b.wtns" >/dev/null 2>&1 &&
    cmp -s "$tmp/a.r1cs" "$tmp/b.r1cs" && cmp -s "$tmp/a.wtns" "$tmp/b.wtns" && ok || bad "synth: --opt=value differs"
"$G16" setup --insecure-test-setup --seed 11 --backend cpu "$tmp/a.r1cs" "$tmp/a.zkey" --vk "$tmp/a_vk.json" >/dev/null 2>&1 &&
"$G16" setup "$tmp/a.r1cs" --seed=11 --insecure-test-setup --backend=cpu --vk="$tmp/b_vk.json" "$tmp/b.zkey" >/dev/null 2>&1 &&
    cmp -s "$tmp/a.zkey" "$tmp/b.zkey" && cmp -s "$tmp/a_vk.json" "$tmp/b_vk.json" && ok || bad "setup: --opt=value or option order differs"
R=12345; S=678
run p1 0 "$G16" prove --backend cpu --insecure-test-rs $R $S "$ex/circuit.zkey" "$ex/witness.wtns" "$tmp/p1.json" "$tmp/u1.json"
run p2 0 "$G16" prove "$ex/circuit.zkey" --backend=cpu "$ex/witness.wtns" --insecure-test-rs=$R $S "$tmp/p2.json" -v "$tmp/u2.json"
cmp -s "$tmp/p1.json" "$tmp/p2.json" && cmp -s "$tmp/u1.json" "$tmp/u2.json" && ok || bad "prove: --opt=value / order changes the proof"
has p2 "g16 prove: backend cpu" "prove -v"
# rapidsnark's argument form, and -- ending the options
run p3 0 "$G16" prove -- "$ex/circuit.zkey" "$ex/witness.wtns" "$tmp/p3.json" "$tmp/u3.json"
run v3 0 "$G16" verify "$ex/verification_key.json" "$tmp/u3.json" "$tmp/p3.json"
has v3 "OK: proof is valid" "verify"
run b1 2 "$G16" prove --workers 2 "$ex/circuit.zkey" "$ex/witness.wtns" "$tmp/p4.json" "$tmp/u4.json"
has b1 "go with --batch" "a batch option without --batch"
run n1 2 "$G16" prove --device x "$ex/circuit.zkey" "$ex/witness.wtns" "$tmp/p4.json" "$tmp/u4.json"
has n1 "--device takes an integer" "bad number"

echo "== man pages"
for page in g16.1 g16d.8; do
    case $page in g16.1) prog=$G16; gen="help --man";; *) prog=$G16D; gen="--man";; esac
    [ -n "$prog" ] && [ -x "$prog" ] || continue
    f=$BUILD/man/$page
    if [ -f "$f" ]; then ok; else bad "$f not built"; continue; fi
    "$prog" $gen >"$tmp/$page" 2>/dev/null && cmp -s "$f" "$tmp/$page" && ok || bad "$page is not what '$prog $gen' writes now"
    if command -v man >/dev/null; then
        MANWIDTH=80 man --warnings -l "$f" >"$tmp/$page.txt" 2>"$tmp/$page.err" && [ ! -s "$tmp/$page.err" ] && ok ||
            { bad "man -l $page"; head -5 "$tmp/$page.err"; }
        grep -q "NAME" "$tmp/$page.txt" && ok || bad "man -l $page: no NAME"
    elif command -v groff >/dev/null; then
        groff -man -Tutf8 -ww -z "$f" 2>"$tmp/$page.err" && [ ! -s "$tmp/$page.err" ] && ok || bad "groff $page"
    fi
done
if [ -f "$tmp/g16.1.txt" ]; then
    for c in $commands; do grep -q "g16 $c" "$tmp/g16.1.txt" && ok || bad "g16.1 lacks $c"; done
    for o in --insecure-test-rs --out-dir --trusted-key --snarkjs-init --partitions; do
        grep -qF -- "$o" "$tmp/g16.1.txt" && ok || bad "g16.1 lacks $o"
    done
fi
[ -f "$tmp/g16d.8.txt" ] && { grep -qF -- "--max-witnesses" "$tmp/g16d.8.txt" && grep -qF "gpu.msm_window_bits" "$tmp/g16d.8.txt" && ok || bad "g16d.8 lacks options"; }

echo "== naming: batch outputs, --out-dir, info, curves"
run bt 0 "$G16" prove --batch --backend=cpu "$ex/circuit.zkey" "$ex/witness.wtns" "$ex/witness.wtns" --out-dir "$tmp/new/deep/out"
for i in 0 1; do
    [ -f "$tmp/new/deep/out/proof-$i.json" ] && [ -f "$tmp/new/deep/out/public-$i.json" ] && ok || bad "batch: proof-$i.json / public-$i.json missing"
done
run bv 0 "$G16" verify "$ex/verification_key.json" "$tmp/new/deep/out/public-1.json" "$tmp/new/deep/out/proof-1.json"
: >"$tmp/afile"
run bf 2 "$G16" prove --batch "$ex/circuit.zkey" "$ex/witness.wtns" --out-dir "$tmp/afile/sub"
has bf "not a folder" "--out-dir under a file"
run i1 0 "$G16" info "$ex/circuit.zkey"
has i1 "curve: bn254" "info zkey curve"
run i2 0 "$G16" info "$ex/verification_key.json"
has i2 "verification key" "info on verification_key.json"
has i2 "curve: bn254" "info vk curve"
lacks i2 "not supported" "info on JSON"
run i3 0 "$G16" info "$tmp/p1.json"
has i3 "snarkjs proof" "info on proof.json"
run i4 0 "$G16" info "$tmp/u1.json"
has i4 "public signals" "info on public.json"
echo '{"a": 1' >"$tmp/broken.json"
run i5 2 "$G16" info "$tmp/broken.json"
has i5 "not a binary" "info on broken JSON"
lacks i5 "version" "info on broken JSON"
echo 'hello world' >"$tmp/text.txt"
run i6 2 "$G16" info "$tmp/text.txt"
has i6 "not a .zkey, .r1cs or .wtns" "info on a text file"

if "$G16" client --help >/dev/null 2>&1; then
    echo "== g16 client without a server"
    run c1 3 "$G16" client --url http://127.0.0.1:9 status
    has c1 "g16d" "connection hint"
    has c1 "--url" "connection hint"
    run c2 3 "$G16" client --url=http://127.0.0.1:9 health
    has c2 "is g16d running" "connection hint (--url=)"
fi

if [ -n "$G16D" ] && [ -x "$G16D" ] && "$G16" client --help >/dev/null 2>&1; then
    echo "== g16d: curve names, proof-<i>.json"
    d=$tmp/d; mkdir -p $d
    cp "$ex/circuit.zkey" "$ex/witness.wtns" $d/
    "$G16D" --listen=127.0.0.1:0 --ready-file=$d/ready --store sqlite:$d/jobs.db --allowed-roots "$d" \
        --key ex:$d/circuit.zkey --backend cpu >$d/log 2>&1 &
    DPID=$!
    for t in $(seq 1 600); do [ -s $d/ready ] && break; sleep 0.1; done
    if [ -s $d/ready ]; then
        url=http://$(head -n 1 $d/ready)
        run k1 0 "$G16" client --url "$url" keys list
        has k1 "bn254" "g16d key curve"
        lacks k1 "bn128" "g16d key curve"
        run j1 0 "$G16" client --url="$url" submit ex $d/witness.wtns $d/witness.wtns --wait --timeout=120 --out $d/o/p
        [ -f $d/o/p/proof-1.json ] && [ -f $d/o/p/public-1.json ] && ok || bad "client: proof-1.json missing"
        [ ! -e $d/o/p/proof_1.json ] && ok || bad "client: old name proof_1.json written"
        run j2 0 "$G16" verify "$ex/verification_key.json" $d/o/p/public-1.json $d/o/p/proof-1.json
    else
        bad "g16d did not start"; tail -5 $d/log
    fi
    kill $DPID 2>/dev/null; wait $DPID 2>/dev/null; DPID=
fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
