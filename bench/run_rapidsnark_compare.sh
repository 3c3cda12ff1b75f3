#!/usr/bin/env bash
# Whole-process Groth16 proving, g16 against a rapidsnark `prover` binary (and
# optionally snarkjs), on the same .zkey and .wtns, in interleaved rounds:
# each round runs g16 then rapidsnark (then snarkjs, for the first
# --snarkjs-rounds rounds) back to back, so that load from other work on a
# shared machine falls on all tools alike. One untimed warm-up run of each tool
# comes first (warm page cache). Every proof is checked with `g16 verify`; with
# --snarkjs-verify the first proof of each tool is also checked with
# `snarkjs groth16 verify`. Prints one JSON object: per tool the min/median/max
# of wall, user, sys and cpu (user + sys) seconds (from /usr/bin/time), the
# ratios of the medians (other/g16: > 1 means g16 is faster) and the load
# average before and after.
#
#   bench/run_rapidsnark_compare.sh --rapidsnark PATH --zkey c.zkey --wtns w.wtns
#       --vk verification_key.json [--g16 PATH] [--rounds N] [--cpus LIST]
#       [--snarkjs-rounds N] [--snarkjs-verify] [--label NAME]
#
# --cpus LIST runs every timed and warm-up command under `taskset -c LIST`.
# This script neither downloads nor builds rapidsnark: give it a built binary.
set -euo pipefail
cd "$(dirname "$0")/.."

G16=${G16_BIN:-build-rel/g16}
RS=""; ZKEY=""; WTNS=""; VK=""; ROUNDS=5; CPUS=""; SJ_ROUNDS=0; SJ_VERIFY=0; LABEL=""
SNARKJS_CLI=tests/js/node_modules/snarkjs/cli.js
usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
        --rapidsnark) RS=$2; shift 2 ;;
        --zkey) ZKEY=$2; shift 2 ;;
        --wtns) WTNS=$2; shift 2 ;;
        --vk) VK=$2; shift 2 ;;
        --g16) G16=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        --cpus) CPUS=$2; shift 2 ;;
        --snarkjs-rounds) SJ_ROUNDS=$2; shift 2 ;;
        --snarkjs-verify) SJ_VERIFY=1; shift ;;
        --label) LABEL=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "run_rapidsnark_compare: unknown argument $1" >&2; usage >&2; exit 2 ;;
    esac
done
die() { echo "run_rapidsnark_compare: $*" >&2; exit 2; }
if [ -z "$RS" ] || [ -z "$ZKEY" ] || [ -z "$WTNS" ] || [ -z "$VK" ]; then usage >&2; exit 2; fi
[ -x "$G16" ] || die "no g16 binary at $G16"
[ -x "$RS" ] || die "no rapidsnark prover binary at $RS"
for f in "$ZKEY" "$WTNS" "$VK"; do [ -r "$f" ] || die "cannot read $f"; done
[ -x /usr/bin/time ] || die "needs /usr/bin/time (GNU time)"
if [ "$SJ_ROUNDS" -gt 0 ] || [ "$SJ_VERIFY" = 1 ]; then
    [ -r "$SNARKJS_CLI" ] || die "snarkjs not found: run npm ci --prefix tests/js"
fi
[ -n "$LABEL" ] || LABEL=$(basename "$(dirname "$(realpath "$ZKEY")")")

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
PIN=()
[ -n "$CPUS" ] && PIN=(taskset -c "$CPUS")

# prove_cmd TOOL PROOF PUBLIC: the command line of one proof
prove_cmd() {
    case "$1" in
        g16) echo "$G16" prove "$ZKEY" "$WTNS" "$2" "$3" ;;
        rapidsnark) echo "$RS" "$ZKEY" "$WTNS" "$2" "$3" ;;
        snarkjs) echo node "$SNARKJS_CLI" groth16 prove "$ZKEY" "$WTNS" "$2" "$3" ;;
    esac
}
# run_one TOOL ROUND: one timed proof, its times appended to $tmp/TOOL.times,
# the proof checked with g16 verify (outside the timing)
run_one() {
    local tool=$1 r=$2 p="$tmp/$1.$2.proof.json" q="$tmp/$1.$2.public.json"
    # shellcheck disable=SC2046
    if ! /usr/bin/time -f "%e %U %S" -o "$tmp/t" "${PIN[@]}" $(prove_cmd "$tool" "$p" "$q") \
            >"$tmp/$tool.log" 2>&1; then
        cat "$tmp/$tool.log" >&2; die "$tool prove failed (round $r)"
    fi
    [ "$r" = warm ] || tail -n 1 "$tmp/t" >>"$tmp/$tool.times"
    "$G16" verify "$VK" "$q" "$p" >"$tmp/verify.log" 2>&1 ||
        { cat "$tmp/verify.log" >&2; die "g16 verify rejected the $tool proof (round $r)"; }
    echo "$tool round $r: $(tail -n 1 "$tmp/t") (wall user sys s), verified" >&2
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
tools=(g16 rapidsnark)
if [ "$SJ_ROUNDS" -gt 0 ]; then tools+=(snarkjs); fi
for t in "${tools[@]}"; do run_one "$t" warm; done
for r in $(seq 1 "$ROUNDS"); do
    run_one g16 "$r"
    run_one rapidsnark "$r"
    if [ "$r" -le "$SJ_ROUNDS" ]; then run_one snarkjs "$r"; fi
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

sj_verified=()
if [ "$SJ_VERIFY" = 1 ]; then
    for t in "${tools[@]}"; do
        if ! node "$SNARKJS_CLI" groth16 verify "$VK" "$tmp/$t.1.public.json" "$tmp/$t.1.proof.json" \
                >"$tmp/sjv.log" 2>&1 || ! grep -q "OK" "$tmp/sjv.log"; then
            cat "$tmp/sjv.log" >&2; die "snarkjs groth16 verify rejected the $t proof"
        fi
        sj_verified+=("$t")
    done
fi

python3 - "$tmp" "$LABEL" "$ROUNDS" "${CPUS:-all}" "$load_before" "$load_after" \
    "${sj_verified[*]:-}" "${tools[@]}" <<'EOF'
import json, os, statistics, sys
tmp, label, rounds, cpus, lb, la, sjv = sys.argv[1:8]
tools = sys.argv[8:]
out = {"bench": "prove_compare", "label": label, "rounds": int(rounds), "cpus": cpus,
       "nproc": os.cpu_count(), "loadavg_before": lb, "loadavg_after": la,
       "snarkjs_verified": sjv.split(), "tools": {}, "ratios": {}}
med = {}
for t in tools:
    rows = [list(map(float, l.split())) for l in open(os.path.join(tmp, t + ".times")) if l.strip()]
    cols = {"wall_s": [r[0] for r in rows], "user_s": [r[1] for r in rows],
            "sys_s": [r[2] for r in rows], "cpu_s": [r[1] + r[2] for r in rows]}
    out["tools"][t] = {"n": len(rows)}
    for k, v in cols.items():
        out["tools"][t][k] = {"min": round(min(v), 3), "median": round(statistics.median(v), 3),
                              "max": round(max(v), 3), "all": v}
    med[t] = {k: statistics.median(v) for k, v in cols.items()}
for t in tools:
    if t == "g16":
        continue
    out["ratios"][t + "_over_g16"] = {k: round(med[t][k] / med["g16"][k], 3)
                                      for k in ("wall_s", "cpu_s") if med["g16"][k] > 0}
# one line per tool and metric: readable, still one JSON document
c = lambda v: json.dumps(v, separators=(", ", ": "))
lines = ['{' + ", ".join('"%s": %s' % (k, c(v)) for k, v in out.items() if k not in ("tools", "ratios")) + ',',
         ' "tools": {']
for i, t in enumerate(tools):
    ms = ['   "%s": %s' % (k, c(v)) for k, v in out["tools"][t].items()]
    lines.append('  "%s": {\n%s\n  }%s' % (t, ",\n".join(ms), "," if i + 1 < len(tools) else ""))
lines.append(' },')
lines.append(' "ratios": %s' % c(out["ratios"]))
lines.append('}')
print("\n".join(lines))
EOF
