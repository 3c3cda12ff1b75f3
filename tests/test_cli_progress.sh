#!/usr/bin/env bash
# The progress line (src/cli/progress.c, docs/cli.md "Progress"):
#   - on a terminal (a pseudo-terminal made by script(1)), `g16 setup`,
#     `g16 prove --batch` and `g16 bench prove --synthetic` draw one line
#     redrawn with "\r" (stage and percent), and erase it before their last
#     message;
#   - without a terminal they print exactly what they print with --quiet
#     (stdout and stderr compared, digits masked: the timings differ), with
#     no "\r" and no escape sequence;
#   - --quiet (and -q) on a terminal draws nothing;
#   - bench's JSON on stdout stays clean while its stderr is a terminal.
# The circuit size doubles from 2^12 until a CPU setup takes at least 1.5 s
# without a terminal (about 2^12 in the sanitizer build, 2^14-2^15 in a
# release build on 2 cores), so that the line is drawn (it starts after
# 200 ms); the proofs' and the bench's lines are checked where those runs
# take at least 1 s without a terminal (a fast machine or a GPU may not).
set -uo pipefail
G16=${G16_BIN:-build/g16}
command -v script >/dev/null || { echo "skipped: no script(1) (bsdutils)"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0; checks=0
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
ok() { checks=$((checks+1)); }

# Runs "$@" under a pseudo-terminal (stdin, stdout and stderr on it); the
# terminal's bytes go to $tmp/tty.out. Returns the command's status.
on_tty() {
  local cmd="" a
  for a in "$@"; do cmd+=" $(printf '%q' "$a")"; done
  script -qefc "$cmd" /dev/null >"$tmp/tty.out" 2>&1 </dev/null
}
# Masks the digits (timings, sizes) of a file's text.
mask() { sed -E 's/[0-9]+(\.[0-9]+)?/N/g' "$1"; }
# No carriage return and no escape byte in a file.
plain() { ! grep -q $'[\r\033]' "$1"; }
# The terminal output holds a drawn line "<prefix>: <stage> NN%" and the
# erase ("\r\033[K") after the last one.
drawn() {
  python3 - "$tmp/tty.out" "$1" <<'PY'
import re, sys
out = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
prefix = sys.argv[2]
draws = [m for m in re.finditer(r"\r" + re.escape(prefix) + r": ([a-z][a-z -]*?) +(\d+)%", out)]
if not draws:
    print(f"no '{prefix}: <stage> N%' line in {out[:400]!r}")
    sys.exit(1)
last = out.rfind("\x1b[K")
if out.rfind("\r\x1b[K") != last - 1:
    print(f"the line is not erased at the end: {out[-300:]!r}")
    sys.exit(1)
print(f"{len(draws)} draws, stages {sorted(set(m.group(1) for m in draws))}")
PY
}

# A circuit whose setup takes at least 1.5 s here.
log_n=12
while :; do
  "$G16" synth --curve bn254 --log-n $log_n --profile dense --partitions 3 --seed 1 \
    --out "$tmp/c.r1cs" --witness "$tmp/w.wtns" >/dev/null || { echo "FAIL: synth"; exit 1; }
  rm -f "$tmp/k.zkey"
  t0=$(date +%s%N)
  "$G16" setup --insecure-test-setup --backend cpu "$tmp/c.r1cs" "$tmp/k.zkey" --seed 7 >"$tmp/o1" 2>"$tmp/e1" \
    || { echo "FAIL: setup"; cat "$tmp/e1"; exit 1; }
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  [ $ms -ge 1500 ] || [ $log_n -ge 16 ] && break
  log_n=$((log_n+1))
done
echo "test_cli_progress: 2^$log_n, setup $ms ms without a terminal"

# setup: without a terminal, the same as --quiet and -q; no terminal bytes.
for q in --quiet -q; do
  ok; rm -f "$tmp/k.zkey"
  "$G16" setup $q --insecure-test-setup --backend cpu "$tmp/c.r1cs" "$tmp/k.zkey" --seed 7 >"$tmp/o2" 2>"$tmp/e2" \
    || bad "setup $q failed"
  cmp -s "$tmp/o1" "$tmp/o2" || bad "setup: stdout differs with $q"
  [ "$(mask "$tmp/e1")" = "$(mask "$tmp/e2")" ] || { bad "setup: stderr differs with $q"; diff "$tmp/e1" "$tmp/e2"; }
done
ok; plain "$tmp/e1" || bad "setup without a terminal printed terminal bytes"
cp "$tmp/k.zkey" "$tmp/k_notty.zkey"

# setup on a terminal: the line, erased; the same key as without one.
ok; rm -f "$tmp/k.zkey"
on_tty "$G16" setup --insecure-test-setup --backend cpu "$tmp/c.r1cs" "$tmp/k.zkey" --seed 7 || bad "setup on a terminal failed"
drawn "g16 setup" || bad "setup on a terminal: no progress line"
ok; grep -q "g16 setup: points" "$tmp/tty.out" || bad "setup: no 'points' stage"
ok; grep -q "g16 setup: wrote" "$tmp/tty.out" || bad "setup on a terminal: its last message is missing"
ok; cmp -s "$tmp/k.zkey" "$tmp/k_notty.zkey" || bad "setup: the key differs with the progress line"
for q in --quiet -q; do
  ok; rm -f "$tmp/k.zkey"
  on_tty "$G16" setup $q --insecure-test-setup --backend cpu "$tmp/c.r1cs" "$tmp/k.zkey" --seed 7 || bad "setup $q failed"
  ! grep -q $'\033\\[K' "$tmp/tty.out" || bad "setup $q on a terminal drew a line"
done

# prove --batch (an engine job polled): the line on a terminal, nothing
# without one (as --quiet), the same proofs' validity.
"$G16" zkey export-vk "$tmp/k.zkey" "$tmp/vk.json" 2>/dev/null
batch() { rm -rf "$tmp/ob"; mkdir -p "$tmp/ob"; "$@" prove --batch --backend cpu "$tmp/k.zkey" "$tmp"/w.{0,1,2}.wtns --out-dir "$tmp/ob"; }
t0=$(date +%s%N)
ok; batch "$G16" >"$tmp/o1" 2>"$tmp/e1" || bad "prove --batch failed"
batch_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
batch "$G16" -q >"$tmp/o2" 2>"$tmp/e2" || bad "prove --batch -q failed"
cmp -s "$tmp/o1" "$tmp/o2" && cmp -s "$tmp/e1" "$tmp/e2" || bad "prove --batch: output differs with -q"
ok; [ ! -s "$tmp/e1" ] || bad "prove --batch without a terminal printed: $(cat "$tmp/e1")"
ok; batch on_tty "$G16" || bad "prove --batch on a terminal failed"
if [ $batch_ms -ge 1000 ]; then
  ok; drawn "g16 prove --batch" || bad "prove --batch on a terminal: no progress line"
else
  echo "prove --batch: $batch_ms ms, too fast for the line"
fi
for i in 0 1 2; do
  ok; "$G16" verify "$tmp/vk.json" "$tmp/ob/public-$i.json" "$tmp/ob/proof-$i.json" >/dev/null \
    || bad "prove --batch on a terminal: proof $i does not verify"
done

# prove: nothing extra without a terminal; -q on a terminal draws nothing.
prove() { rm -f "$tmp/p.json" "$tmp/pub.json"; "$@" prove "$tmp/k.zkey" "$tmp/w.0.wtns" "$tmp/p.json" "$tmp/pub.json"; }
ok; prove "$G16" >"$tmp/o1" 2>"$tmp/e1" || bad "prove failed"
prove "$G16" --quiet >"$tmp/o2" 2>"$tmp/e2" || bad "prove --quiet failed"
cmp -s "$tmp/o1" "$tmp/o2" && cmp -s "$tmp/e1" "$tmp/e2" || bad "prove: output differs with --quiet"
ok; prove on_tty "$G16" -q || bad "prove -q on a terminal failed"
[ ! -s "$tmp/tty.out" ] || bad "prove -q on a terminal printed: $(cat -v "$tmp/tty.out")"
ok; prove on_tty "$G16" || bad "prove on a terminal failed"
"$G16" verify "$tmp/vk.json" "$tmp/pub.json" "$tmp/p.json" >/dev/null || bad "prove on a terminal: invalid proof"

# bench: stderr on a terminal, stdout (the JSON) in a file.
b=$log_n
t0=$(date +%s%N)
ok; "$G16" bench prove --synthetic --backend cpu --log-n $b --reps 1 --json >"$tmp/o1" 2>"$tmp/e1" || bad "bench failed"
bench_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
"$G16" bench prove --synthetic --backend cpu --log-n $b --reps 1 --json -q >"$tmp/o2" 2>"$tmp/e2" || bad "bench -q failed"
[ "$(mask "$tmp/e1")" = "$(mask "$tmp/e2")" ] && plain "$tmp/e1" || bad "bench: stderr differs with -q"
[ "$(mask "$tmp/o1")" = "$(mask "$tmp/o2")" ] || bad "bench: stdout differs with -q"
ok; script -qefc "$(printf '%q ' "$G16" bench prove --synthetic --backend cpu --log-n $b --reps 1 --json) >$tmp/b.json" \
  /dev/null >"$tmp/tty.out" 2>&1 </dev/null || bad "bench on a terminal failed"
if [ $bench_ms -ge 1000 ]; then
  ok; drawn "g16 bench prove" || bad "bench prove: no progress line"
else
  echo "bench prove: $bench_ms ms, too fast for the line"
fi
ok; plain "$tmp/b.json" && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/b.json" \
  || bad "bench prove: stdout is not one clean JSON object: $(cat -v "$tmp/b.json" | head -c 300)"

echo "test_cli_progress: $checks checks, $fail failures"
[ $fail -eq 0 ]
