#!/usr/bin/env bash
# The layering of the sources, read from their #include "..." lines
# (src/, include/, bench/; .c .h .cu .cuh .cpp). Fails when
#   - a file includes a file of a layer above its own (the rank table below);
#   - a file under src/ includes one under tests/ or bench/ (exceptions:
#     SRC_OUTSIDE, each with its reason);
#   - a file of src/daemon or src/cli includes a library header other than
#     include/g16.h (exceptions: FRONT_EXCEPTIONS, each with its reason);
#   - include/g16.h includes a project file;
#   - files include each other in a circle (each circle is printed);
#   - an include names no file, or a file lies in a folder the table lacks;
#   - an exception above is no longer used (the lists stay true).
# Quoted includes resolve as the compilers do here: the including file's
# folder first, then include/, then src/. Conditional includes count.
# Usage: tests/test_layering.sh [ROOT] (default: the repository). The checker
# first runs on a small tree with one fault of each kind and must fail there.
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }

check() {
python3 - "$1" <<'PY'
import os, re, sys

root = sys.argv[1]

# Rank of each layer: a file may include files of its own rank or below.
# include/g16.h is the public API (declarations only): every layer may use
# its types, and it is all that daemon and cli take from the library.
RANK = {
    "api": 0,                               # include/g16.h
    "util": 1,
    "field": 2,
    "curve": 3, "pairing": 3,
    "ntt": 4, "msm": 4, "gpu": 4,          # src/gpu: beside ntt/msm
    "formats": 5,                           # binary container, zkey, wtns, r1cs, JSON
    "groth16": 6,                           # prove, verify, setup, synthesis
    "engine": 7,
    "daemon": 8, "cli": 8, "bench": 8,      # bench beside cli
}
LIBRARY = {"util", "field", "curve", "pairing", "ntt", "msm", "gpu", "formats", "groth16", "engine"}

# src/ files that may include a file outside src/ and include/, with why.
SRC_OUTSIDE = {
    ("src/cli/main.c", "bench/bench_main.h"):
        "`g16 bench`: the CLI calls the benches through their one entry function",
}
# daemon/cli files that may include a library header besides include/g16.h,
# each with why (what g16.h does not offer them yet).
FRONT_EXCEPTIONS = {
    "src/cli/cmd_groth16.c": ("util/util.h", "util/file.h", "groth16/groth16.h", "groth16/prover.h", "gpu/gpu.h"),
    "src/cli/cmd_synth.c": ("groth16/synth.h",),
    "src/cli/cmd_client.c": ("util/file.h", "util/config.h"),
    "src/cli/cmd_params.c": ("groth16/params.h", "groth16/assignment.h"),
    "src/cli/main.c": ("gpu/gpu.h",),
    "src/daemon/store.h": ("util/util.h",),
}
FRONT_WHY = {
    "src/cli/cmd_groth16.c": "`g16 zkey`, `setup`, `info` and the prover's GPU options use the groth16 "
                             "layer (formats, test setup), the device prover and the output-path check "
                             "(util/file.h), which g16.h does not offer",
    "src/cli/cmd_synth.c": "`g16 synth` makes synthetic circuits (groth16/synth.h, no public API)",
    "src/cli/cmd_params.c": "`g16 info` on bellperson .params/.vk/.assignment files reads them with the "
                            "groth16 layer's readers (groth16/params.h, groth16/assignment.h), and `prove "
                            "--params`, `verify --params`, `synth --assignment` use its file-level helpers, "
                            "which g16.h does not offer",
    "src/cli/cmd_client.c": "`g16 client` reads witness files with the library's regular-file check "
                            "(util/file.h: a FIFO is refused, never blocks) and its $G16D_URL / $G16D_TOKEN "
                            "through the options table's environment reader (util/config.h)",
    "src/cli/main.c": "`g16 --version` lists the GPUs that the CUDA runtime sees (g16_gpu_probe, "
                      "g16_gpu_describe), which g16.h does not offer",
    "src/daemon/store.h": "g16_status / g16_fail (typed errors with a message) and g16_now_ms of the "
                          "util layer, which every daemon file reaches through store.h",
}
assert FRONT_EXCEPTIONS.keys() == FRONT_WHY.keys()

EXTS = (".c", ".h", ".cu", ".cuh", ".cpp")
INC = re.compile(r'^\s*#\s*include\s*"([^"]+)"')

def layer(path):
    if path in ("include/g16.h", "include/g16_testing.h"):
        return "api"
    parts = path.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[0] in ("bench", "tests"):
        return parts[0]
    return None

files = []
for top in ("src", "include", "bench"):
    for d, _, names in os.walk(os.path.join(root, top)):
        for n in names:
            if n.endswith(EXTS):
                files.append(os.path.relpath(os.path.join(d, n), root))
files.sort()

errors = []
edges = {}
used = set()
for f in files:
    lf = layer(f)
    if lf not in RANK:
        errors.append(f"{f}: folder not in the rank table of tests/test_layering.sh")
        continue
    deps = edges.setdefault(f, [])
    with open(os.path.join(root, f), errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            m = INC.match(line)
            if not m:
                continue
            name = m.group(1)
            target = None
            for base in (os.path.dirname(f), "include", "src"):
                cand = os.path.normpath(os.path.join(base, name))
                if os.path.isfile(os.path.join(root, cand)):
                    target = cand
                    break
            where = f"{f}:{lineno}"
            if target is None:
                errors.append(f'{where}: #include "{name}" names no file')
                continue
            if target not in deps and target != f:
                deps.append(target)
            if target == f:
                errors.append(f"{where}: includes itself")
            lt = layer(target)
            if f.startswith("src/") and not target.startswith(("src/", "include/")):
                used.add((f, target))
                if (f, target) not in SRC_OUTSIDE:
                    errors.append(f"{where}: src/ includes {target} (outside src/ and include/)")
                continue
            if f == "include/g16.h":
                errors.append(f"{where}: the public header includes {target}")
                continue
            if lt not in RANK:
                errors.append(f"{where}: includes {target}, of no layer in the rank table")
                continue
            if RANK[lt] > RANK[lf]:
                errors.append(f"{where}: layer {lf} (rank {RANK[lf]}) includes {target} "
                              f"of layer {lt} (rank {RANK[lt]}), a layer above its own")
            if lf in ("daemon", "cli") and lt in LIBRARY:
                short = target[len("src/"):]
                used.add((f, short))
                if short not in FRONT_EXCEPTIONS.get(f, ()):
                    errors.append(f"{where}: {lf} includes {target}: daemon and cli use only include/g16.h "
                                  "of the library (exceptions: FRONT_EXCEPTIONS)")

# Circles: strongly connected components of the include graph (Tarjan),
# each printed as one cycle through its files.
index, low, onstack, stack, sccs = {}, {}, set(), [], []
counter = [0]
def strong(v):
    work = [(v, iter(edges.get(v, ())))]
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); onstack.add(v)
    while work:
        node, it = work[-1]
        advanced = False
        for w in it:
            if w not in index:
                index[w] = low[w] = counter[0]; counter[0] += 1
                stack.append(w); onstack.add(w)
                work.append((w, iter(edges.get(w, ()))))
                advanced = True
                break
            if w in onstack:
                low[node] = min(low[node], index[w])
        if advanced:
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[node])
        if low[node] == index[node]:
            comp = []
            while True:
                w = stack.pop(); onstack.discard(w); comp.append(w)
                if w == node:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))
for v in sorted(edges):
    if v not in index:
        strong(v)
for comp in sccs:
    members = set(comp)
    # a shortest cycle back to comp[0], by breadth-first search inside comp
    start, prev, queue, cycle = comp[0], {comp[0]: None}, [comp[0]], None
    while queue and cycle is None:
        nxt = []
        for u in queue:
            for w in edges.get(u, ()):
                if w == start:
                    path = [u]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    cycle = list(reversed(path)) + [start]
                    break
                if w in members and w not in prev:
                    prev[w] = u
                    nxt.append(w)
            if cycle:
                break
        queue = nxt
    errors.append("include circle: " + " -> ".join(cycle or comp))

# An exception that no include uses any more is taken off the lists.
for (f, t), why in SRC_OUTSIDE.items():
    if (f, t) not in used:
        errors.append(f"SRC_OUTSIDE lists {f} -> {t}, which no longer exists: remove it")
    else:
        print(f"exception: {f} includes {t}: {why}")
for f, hs in FRONT_EXCEPTIONS.items():
    for h in hs:
        if (f, h) not in used:
            errors.append(f"FRONT_EXCEPTIONS lists {f} -> {h}, which no longer exists: remove it")
    print(f"exception: {f} includes {', '.join(hs)}: {FRONT_WHY[f]}")

for e in errors:
    print("FAIL:", e)
print(f"{len(files)} files, {sum(len(v) for v in edges.values())} includes, {len(errors)} faults")
sys.exit(1 if errors else 0)
PY
}

# The checker must fail on a tree with one fault of each kind.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/util" "$tmp/src/engine" "$tmp/src/cli" "$tmp/include" "$tmp/tests" "$tmp/bench"
printf '#include "../engine/engine.h"\n' >"$tmp/src/util/util.h"          # upward
printf '#include "b.h"\n' >"$tmp/src/engine/a.h"                           # circle a -> b -> a
printf '#include "a.h"\n' >"$tmp/src/engine/b.h"
printf '#include "a.h"\n' >"$tmp/src/engine/engine.h"
printf '#include "../../tests/t.h"\n#include "engine/engine.h"\n' >"$tmp/src/cli/main.c" # tests/; not g16.h
printf '\n' >"$tmp/tests/t.h"
printf '\n' >"$tmp/include/g16.h"
self=$(check "$tmp")
for want in "util/util.h:1: layer util" "src/cli/main.c:1: src/ includes tests/t.h" \
            "src/cli/main.c:2: cli includes src/engine/engine.h" \
            "include circle: src/engine/a.h -> src/engine/b.h -> src/engine/a.h"; do
    if ! grep -qF "$want" <<<"$self"; then
        echo "FAIL: the checker missed a fault: $want"
        echo "$self"
        exit 1
    fi
done

check "$root"
