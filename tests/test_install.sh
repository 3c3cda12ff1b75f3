#!/usr/bin/env bash
# g16 installs like a package: a separate release build (no CUDA, no tests)
# installed with `cmake --install` into a fresh prefix, and its .deb
# (`cpack -G DEB`) unpacked into a fresh root with `dpkg -x`. Each tree must
# hold the binaries, libg16.so.0 (soname, symlinks), g16.h, g16.pc,
# librapidsnark_g16.so with rapidsnark's prover.h / verifier.h, the Python
# package (lib/python3/dist-packages/g16) and the systemd unit with that
# tree's paths. In each tree, with LD_LIBRARY_PATH
# unset:
#   - its g16 proves and verifies the bundled example (examples/poseidon),
#     from the witness and from input.json through circom's .wasm generator
#     (compiled here with circom2: `g16 prove --input --witness-gen`);
#   - a small C program built with `pkg-config --cflags --libs g16` runs
#     g16_version() and g16_selfcheck(); examples/c/prove.c (g16.h) and
#     examples/c/rapidsnark_prove.c (rapidsnark's prover.h, unchanged,
#     linked with -lrapidsnark_g16) build against the tree and prove;
#   - the Python package over the tree's libg16 proves from the witness and
#     from input.json: pip-installed (--no-build-isolation) for the prefix,
#     the .deb's own (/usr/lib/python3/dist-packages) for the .deb;
#   - snarkjs verifies every proof made;
#   - the man pages g16.1 (and g16d.8) are installed, equal to the installed
#     programs' --man output, and `man -l` formats them without a warning;
#     `g16 --help` prints the usage.
# Skips (77) without cmake, cpack or dpkg-deb; fails without node and
# tests/js/node_modules (circom2, circomlib, snarkjs: npm ci --prefix tests/js).
set -uo pipefail
for t in cmake cpack dpkg-deb; do
    command -v $t >/dev/null || { echo "skipped: no $t"; exit 77; }
done
src=$(cd "$(dirname "$0")/.." && pwd)
nm=$src/tests/js/node_modules
tmp=$(mktemp -d "${TMPDIR:-/tmp}/g16-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset LD_LIBRARY_PATH
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
check() { # check "what" command...
    local what=$1; shift
    if "$@" >"$tmp/check.out" 2>&1; then ok; else bad "$what"; sed 's/^/  /' "$tmp/check.out" | tail -20; fi
}
finish() { echo "$pass passed, $fail failed"; [ $fail = 0 ]; exit $?; }

version=$(sed -n 's/^project(g16 VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
major=${version%%.*}
[ -n "$version" ] || { bad "no VERSION in CMakeLists.txt"; finish; }
daemon=OFF
if command -v pkg-config >/dev/null && pkg-config --exists libmicrohttpd sqlite3 libcurl; then daemon=ON; fi
echo "== g16 $version, daemon $daemon: configure and build (release, no CUDA)"
b=$tmp/build
if ! cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE=Release -DG16_CUDA=OFF -DG16_TESTS=OFF \
        -DG16_SANITIZE=OFF -DG16_DAEMON=$daemon >"$tmp/configure.log" 2>&1; then
    tail -30 "$tmp/configure.log"; bad "configure"; finish
fi
if ! cmake --build "$b" -j"$(nproc)" >"$tmp/build.log" 2>&1; then
    tail -30 "$tmp/build.log"; bad "build"; finish
fi

# circom's .wasm generator of examples/poseidon (bn128), for `g16 prove
# --input`. circom2 (WASI) reads only paths relative to its working
# directory, so it runs in / with every path relative to it.
snarkjs=$nm/snarkjs/cli.js
wasm=$tmp/witgen/poseidon_js/poseidon.wasm
if command -v node >/dev/null && [ -f "$snarkjs" ] && [ -f "$nm/circom2/cli.js" ] && [ -d "$nm/circomlib" ]; then
    nmr=$(realpath "$nm"); mkdir -p "$tmp/witgen"; wg=$(realpath "$tmp/witgen")
    (cd / && node "${nmr#/}/circom2/cli.js" "${src#/}/examples/poseidon/poseidon.circom" --wasm --prime bn128 \
        -l "${nmr#/}" -o "${wg#/}") >"$tmp/circom.log" 2>&1 || { tail -20 "$tmp/circom.log"; bad "circom2 poseidon.circom --wasm"; }
    check "circom2 wrote poseidon.wasm and generate_witness.js" test -s "$tmp/witgen/poseidon_js/generate_witness.js"
else
    bad "node, $snarkjs, circom2 or circomlib missing (npm ci --prefix tests/js)"
fi
# snarkjs_ok VK PUBLIC PROOF: `snarkjs groth16 verify` accepts the proof.
snarkjs_ok() { node "$snarkjs" groth16 verify "$@" >"$tmp/snarkjs.out" 2>&1; cat "$tmp/snarkjs.out"; grep -q 'OK!' "$tmp/snarkjs.out"; }

# prove_example G16 LABEL: proves and verifies examples/poseidon (both curves).
prove_example() {
    local g16=$1 label=$2 curve d
    for curve in bn128 bls12381; do
        d=$src/examples/poseidon/$curve
        check "$label: g16 prove ($curve)" "$g16" prove "$d/circuit.zkey" "$d/witness.wtns" \
            "$tmp/proof-$label-$curve.json" "$tmp/public-$label-$curve.json"
        check "$label: g16 verify ($curve)" "$g16" verify "$d/verification_key.json" \
            "$tmp/public-$label-$curve.json" "$tmp/proof-$label-$curve.json"
    done
}
# no_missing_libs BINARY: every NEEDED library resolves without LD_LIBRARY_PATH.
no_missing_libs() { ! ldd "$1" | grep -q 'not found'; }
no_rpath() { ! readelf -d "$1" | grep -qE 'RPATH|RUNPATH'; }
soname_is() { readelf -d "$1" | grep -q "Library soname: \[$2\]"; }
link_is() { [ -L "$1" ] && [ "$(readlink "$1")" = "$2" ]; }
has_line() { grep -qxF "$2" "$1"; }

# The C program: version equal to the .pc's, self-check passes.
cat >"$tmp/use_g16.c" <<'EOF'
#include <g16.h>
#include <stdio.h>
#include <string.h>
int main(void) {
    const char *v = g16_version();
    if (strcmp(v, EXPECT_VERSION) != 0) {
        fprintf(stderr, "g16_version() %s, expected %s\n", v, EXPECT_VERSION);
        return 1;
    }
    g16_ctx *ctx = g16_ctx_create(NULL);
    if (!ctx) return 1;
    char buf[1024];
    g16_err e = g16_selfcheck(ctx, buf, sizeof buf);
    printf("%s\n", buf);
    g16_ctx_destroy(ctx);
    return e == G16_OK ? 0 : 1;
}
EOF
# build_c_program OUT SOURCE LIBDIR PKG_CONFIG_ENV...: compiles SOURCE with
# the flags of pkg-config (run in the environment given), with an RPATH to
# LIBDIR (the library's folder) in place of LD_LIBRARY_PATH.
build_c_program() {
    local out=$1 source=$2 libdir=$3; shift 3
    local flags
    flags=$(env "$@" pkg-config --cflags --libs g16) || return 1
    echo "cc $flags"
    cc -std=c11 -Wall -Wextra -Werror -DEXPECT_VERSION="\"$version\"" "$source" \
        -o "$out" $flags -Wl,-rpath,"$libdir"
}
# build_rapidsnark_program OUT INCLUDEDIR LIBDIR: compiles
# examples/c/rapidsnark_prove.c (#include "prover.h", as for rapidsnark) with
# rapidsnark's headers from INCLUDEDIR/rapidsnark and -lrapidsnark_g16.
build_rapidsnark_program() {
    cc -std=c11 -Wall -Wextra -Werror -I"$2/rapidsnark" "$src/examples/c/rapidsnark_prove.c" -o "$1" \
        -L"$3" -lrapidsnark_g16 -Wl,-rpath,"$3"
}
# The Python package, installed once with pip (as tests/test_python.sh
# does; from the source tree without pip).
pysite=$src/python
if command -v python3 >/dev/null && python3 -c 'import pip' 2>/dev/null; then
    cp -r "$src/python" "$tmp/pysrc" && rm -rf "$tmp/pysrc/build" "$tmp/pysrc"/*.egg-info
    if python3 -m pip install --no-build-isolation --no-deps --no-index --quiet --disable-pip-version-check \
            --target "$tmp/pysite" "$tmp/pysrc" >"$tmp/pip.log" 2>&1; then
        pysite=$tmp/pysite; ok
    else
        tail -5 "$tmp/pip.log"; bad "pip install --no-build-isolation ./python"
    fi
fi
# python_ok LIBRARY DIR SITE: the package in SITE over the installed
# LIBRARY proves the example from its witness and from input.json (circom's
# .wasm), and verifies both; writes DIR/py{proof,public}.json for snarkjs.
python_ok() {
    G16_LIBRARY=$1 PYTHONPATH=$3 PYTHONDONTWRITEBYTECODE=1 python3 - "$src" "$wasm" "$2" "$3" <<'PY'
import os, sys
import g16
src, wasm, out, site = sys.argv[1:]
assert os.path.realpath(g16.__file__).startswith(os.path.realpath(site) + os.sep), g16.__file__
d = os.path.join(src, "examples", "poseidon", "bn128")
vk = os.path.join(d, "verification_key.json")
assert os.path.realpath(g16.library_path()) == os.path.realpath(os.environ["G16_LIBRARY"]), g16.library_path()
with g16.Context() as ctx:
    res = ctx.prove(os.path.join(d, "circuit.zkey"), os.path.join(d, "witness.wtns"),
                    proof_path=os.path.join(out, "pyproof.json"), public_path=os.path.join(out, "pypublic.json"))
    assert ctx.verify(vk, res.public, res.proof)
    res2 = ctx.prove(os.path.join(d, "circuit.zkey"), input=os.path.join(src, "examples", "poseidon", "input.json"),
                     witness_gen=wasm)
    assert res2.public == res.public and ctx.verify(vk, res2.public_json, res2.proof_json)
print("g16", g16.version(), "from", g16.library_path(), ": proved and verified")
PY
}
# run_examples LABEL G16 PROVE RAPIDSNARK_PROVE LIBG16 PYSITE: the example
# programs, `G16 prove --input --witness-gen` and the Python package in
# PYSITE over LIBG16 on examples/poseidon/bn128, each proof verified by
# snarkjs.
run_examples() {
    local label=$1 g16=$2 prove=$3 rprove=$4 d=$src/examples/poseidon/bn128 o=$tmp/ex-$1
    mkdir -p "$o"
    check "$label: examples/c/prove.c runs" "$prove" "$d/circuit.zkey" "$d/witness.wtns" "$o/proof.json" \
        "$o/public.json" "$o/vk.json"
    check "$label: snarkjs verifies prove.c's proof" snarkjs_ok "$d/verification_key.json" "$o/public.json" \
        "$o/proof.json"
    check "$label: examples/c/rapidsnark_prove.c runs" "$rprove" "$d/circuit.zkey" "$d/witness.wtns" \
        "$d/verification_key.json" "$o/rproof.json" "$o/rpublic.json"
    check "$label: snarkjs verifies rapidsnark_prove.c's proof" snarkjs_ok "$d/verification_key.json" \
        "$o/rpublic.json" "$o/rproof.json"
    check "$label: g16 prove --input input.json --witness-gen poseidon.wasm" "$g16" prove \
        --input "$src/examples/poseidon/input.json" --witness-gen "$wasm" "$d/circuit.zkey" \
        "$o/wproof.json" "$o/wpublic.json"
    check "$label: snarkjs verifies the proof from input.json" snarkjs_ok "$d/verification_key.json" \
        "$o/wpublic.json" "$o/wproof.json"
    check "$label: public.json from input.json is the witness's" cmp "$o/wpublic.json" "$o/public.json"
    if command -v python3 >/dev/null; then
        check "$label: Python ($6) over the installed libg16 proves and verifies" python_ok "$5" "$o" "$6"
        check "$label: snarkjs verifies the Python proof" snarkjs_ok "$d/verification_key.json" \
            "$o/pypublic.json" "$o/pyproof.json"
    fi
}
needs_libg16() { readelf -d "$1" | grep -q "Shared library: \[libg16.so.$major\]"; }

# ---- cmake --install into a fresh prefix --------------------------------------------
p=$tmp/prefix
echo "== cmake --install --prefix $p"
check "cmake --install" cmake --install "$b" --prefix "$p"
lib=$p/lib
[ -d "$p/lib64" ] && [ ! -e "$p/lib/libg16.so.$major" ] && lib=$p/lib64
check "bin/g16 executable" test -x "$p/bin/g16"
check "bin/g16: libraries resolve" no_missing_libs "$p/bin/g16"
check "bin/g16: no RPATH into the build tree" no_rpath "$p/bin/g16"
check "lib/libg16.so.$version" test -f "$lib/libg16.so.$version"
check "lib/libg16.so.$major -> libg16.so.$version" link_is "$lib/libg16.so.$major" "libg16.so.$version"
check "lib/libg16.so -> libg16.so.$major" link_is "$lib/libg16.so" "libg16.so.$major"
check "soname libg16.so.$major" soname_is "$lib/libg16.so.$version" "libg16.so.$major"
check "include/g16.h" test -f "$p/include/g16.h"
for h in "$src"/include/g16*.h; do
    check "include/$(basename "$h") installed and equal" cmp "$h" "$p/include/$(basename "$h")"
done
check "lib/librapidsnark_g16.so" test -f "$lib/librapidsnark_g16.so"
check "lib/librapidsnark_g16.so: libraries resolve" no_missing_libs "$lib/librapidsnark_g16.so"
for h in prover.h verifier.h; do
    check "include/rapidsnark/$h installed and equal" cmp "$src/compat/rapidsnark/include/rapidsnark/$h" \
        "$p/include/rapidsnark/$h"
done
check "include/g16_rapidsnark.h" test -f "$p/include/g16_rapidsnark.h"
for f in "$src"/python/g16/*.py; do
    check "lib/python3/dist-packages/g16/$(basename "$f") installed and equal" cmp "$f" \
        "$p/lib/python3/dist-packages/g16/$(basename "$f")"
done
check "g16.pc" test -f "$lib/pkgconfig/g16.pc"
check "g16.pc prefix" has_line "$lib/pkgconfig/g16.pc" "prefix=$p"
check "g16.pc Version" has_line "$lib/pkgconfig/g16.pc" "Version: $version"
for f in README.md LICENSE LICENSE-APACHE LICENSE-MIT CHANGELOG.md; do
    check "share/doc/g16/$f" test -f "$p/share/doc/g16/$f"
done
# man_renders PAGE: `man -l` formats it without a warning (groff when man
# is missing; only the file's presence when neither is there).
man_renders() {
    if command -v man >/dev/null; then
        MANWIDTH=80 man --warnings -l "$1" >"$tmp/man.txt" 2>"$tmp/man.err" || return 1
    elif command -v groff >/dev/null; then
        groff -man -Tutf8 -ww "$1" >"$tmp/man.txt" 2>"$tmp/man.err" || return 1
    else
        return 0
    fi
    cat "$tmp/man.err"
    [ ! -s "$tmp/man.err" ] && grep -q NAME "$tmp/man.txt"
}
# same_as_output FILE CMD...: FILE holds exactly what CMD writes.
same_as_output() { local f=$1; shift; "$@" >"$tmp/gen.out" && cmp "$f" "$tmp/gen.out"; }
check "man page g16.1" test -f "$p/share/man/man1/g16.1"
check "man -l g16.1" man_renders "$p/share/man/man1/g16.1"
check "g16.1 is g16 help --man" same_as_output "$p/share/man/man1/g16.1" "$p/bin/g16" help --man
check "bin/g16 --help" sh -c "'$p/bin/g16' --help | grep -q 'usage: g16'"
check "bin/g16 --version" sh -c "'$p/bin/g16' --version | grep -qx 'g16 $version'"
if [ $daemon = ON ]; then
    unit=$p/lib/systemd/system/g16d.service
    check "bin/g16d executable" test -x "$p/bin/g16d"
    check "bin/g16d --version" sh -c "'$p/bin/g16d' --version | grep -qx 'g16d $version'"
    check "systemd unit" test -f "$unit"
    check "unit ExecStart" has_line "$unit" "ExecStart=$p/bin/g16d --config $p/etc/g16d/g16d.conf"
    check "unit has no @VAR@ left" sh -c "! grep -q @ '$unit'"
    check "sample config" cmp "$src/examples/g16d.conf" "$p/share/doc/g16/examples/g16d.conf"
    check "man page g16d.8" test -f "$p/share/man/man8/g16d.8"
    check "man -l g16d.8" man_renders "$p/share/man/man8/g16d.8"
    check "g16d.8 is g16d --man" same_as_output "$p/share/man/man8/g16d.8" "$p/bin/g16d" --man
fi
echo "== installed g16 on examples/poseidon"
prove_example "$p/bin/g16" prefix
echo "== a C program built with pkg-config against the prefix"
check "pkg-config --modversion g16" sh -c "[ \"\$(PKG_CONFIG_PATH='$lib/pkgconfig' pkg-config --modversion g16)\" = '$version' ]"
check "compile with pkg-config (prefix)" build_c_program "$tmp/use_prefix" "$tmp/use_g16.c" "$lib" PKG_CONFIG_PATH="$lib/pkgconfig"
check "program needs libg16.so.$major" needs_libg16 "$tmp/use_prefix"
check "program runs: version and self-check" "$tmp/use_prefix"
check "compile examples/c/prove.c with pkg-config (prefix)" build_c_program "$tmp/prove_prefix" \
    "$src/examples/c/prove.c" "$lib" PKG_CONFIG_PATH="$lib/pkgconfig"
check "compile examples/c/rapidsnark_prove.c with -lrapidsnark_g16 (prefix)" build_rapidsnark_program \
    "$tmp/rprove_prefix" "$p/include" "$lib"
check "rapidsnark program needs librapidsnark_g16.so only" sh -c \
    "readelf -d '$tmp/rprove_prefix' | grep -q 'Shared library: \[librapidsnark_g16.so\]' && ! readelf -d '$tmp/rprove_prefix' | grep -q 'libg16'"
run_examples prefix "$p/bin/g16" "$tmp/prove_prefix" "$tmp/rprove_prefix" "$lib/libg16.so.$major" "$pysite"

# ---- the .deb ------------------------------------------------------------------------------
echo "== cpack -G DEB"
if ! (cd "$b" && cpack -G DEB) >"$tmp/cpack.log" 2>&1; then
    tail -30 "$tmp/cpack.log"; bad "cpack -G DEB"; finish
fi
deb=$(ls "$b"/g16_"$version"_*.deb 2>/dev/null | head -1)
check "the .deb g16_${version}_ARCH.deb" test -f "$deb"
[ -f "$deb" ] || finish
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's,^\./,/,' >"$tmp/deb.list"
dpkg-deb -I "$deb" >"$tmp/deb.info"
debfiles=(/usr/bin/g16 /usr/include/g16.h /usr/share/doc/g16/LICENSE /usr/share/doc/g16/CHANGELOG.md
          /usr/share/man/man1/g16.1)
[ $daemon = ON ] && debfiles+=(/usr/bin/g16d /usr/lib/systemd/system/g16d.service /usr/share/man/man8/g16d.8)
for f in "${debfiles[@]}"; do check "dpkg-deb -c lists $f" grep -qx "$f" "$tmp/deb.list"; done
for f in /usr/include/rapidsnark/prover.h /usr/include/rapidsnark/verifier.h; do
    check "dpkg-deb -c lists $f" grep -qx "$f" "$tmp/deb.list"
done
check "dpkg-deb -c lists /usr/lib/python3/dist-packages/g16/__init__.py" \
    grep -qx /usr/lib/python3/dist-packages/g16/__init__.py "$tmp/deb.list"
check "dpkg-deb -c lists librapidsnark_g16.so" grep -qE "^/usr/lib/([^/]+/)?librapidsnark_g16\.so$" "$tmp/deb.list"
check "dpkg-deb -c lists libg16.so.$major" grep -qE "^/usr/lib/([^/]+/)?libg16\.so\.$major$" "$tmp/deb.list"
check "dpkg-deb -c lists g16.pc" grep -qE "^/usr/lib/([^/]+/)?pkgconfig/g16\.pc$" "$tmp/deb.list"
check "dpkg-deb -I Package" grep -qx ' Package: g16' "$tmp/deb.info"
check "dpkg-deb -I Version" grep -qx " Version: $version" "$tmp/deb.info"
check "dpkg-deb -I Maintainer" grep -qE '^ Maintainer: .+' "$tmp/deb.info"
check "dpkg-deb -I Description" grep -qE '^ Description: .+' "$tmp/deb.info"
check "dpkg-deb -I Depends: libc6" grep -qE '^ Depends: .*libc6 \(>=' "$tmp/deb.info"
check "dpkg-deb -I Depends: libjansson" grep -qE '^ Depends: .*libjansson' "$tmp/deb.info"
[ $daemon = ON ] && check "dpkg-deb -I Depends: libmicrohttpd" grep -qE '^ Depends: .*libmicrohttpd' "$tmp/deb.info"

r=$tmp/root
echo "== dpkg -x into $r"
check "dpkg -x" dpkg -x "$deb" "$r"
rlib=$(dirname "$(ls "$r"/usr/lib/libg16.so.$major "$r"/usr/lib/*/libg16.so.$major 2>/dev/null | head -1)")
check "root: soname libg16.so.$major" soname_is "$rlib/libg16.so.$major" "libg16.so.$major"
check "root: g16.pc prefix=/usr" has_line "$rlib/pkgconfig/g16.pc" "prefix=/usr"
if [ $daemon = ON ]; then
    check "root: unit ExecStart" has_line "$r/usr/lib/systemd/system/g16d.service" \
        "ExecStart=/usr/bin/g16d --config /etc/g16d/g16d.conf"
fi
echo "== the .deb's g16 on examples/poseidon"
prove_example "$r/usr/bin/g16" deb
echo "== a C program built with pkg-config against the .deb's tree"
check "compile with pkg-config (.deb, sysroot)" build_c_program "$tmp/use_deb" "$tmp/use_g16.c" "$rlib" \
    PKG_CONFIG_LIBDIR="$rlib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$r"
check "program (.deb) runs: version and self-check" "$tmp/use_deb"
check "compile examples/c/prove.c with pkg-config (.deb)" build_c_program "$tmp/prove_deb" \
    "$src/examples/c/prove.c" "$rlib" PKG_CONFIG_LIBDIR="$rlib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$r"
check "compile examples/c/rapidsnark_prove.c with -lrapidsnark_g16 (.deb)" build_rapidsnark_program \
    "$tmp/rprove_deb" "$r/usr/include" "$rlib"
run_examples deb "$r/usr/bin/g16" "$tmp/prove_deb" "$tmp/rprove_deb" "$rlib/libg16.so.$major" \
    "$r/usr/lib/python3/dist-packages"
check "root: man -l g16.1" man_renders "$r/usr/share/man/man1/g16.1"
check "root: g16 --help" sh -c "'$r/usr/bin/g16' --help | grep -q 'usage: g16'"
finish
