#!/usr/bin/env bash
# What g16 does with files when things go wrong (docs/formats.md "Files"):
#   - outputs are replaced atomically: a write that fails (file size limit,
#     full disk) leaves the old proof.json / public.json / vk / zkey / r1cs
#     in place and no temporary file behind; setup on a full tmpfs (root
#     only) is a clean error, not a SIGBUS;
#   - an output that names an input or the other output (same path, a path
#     through "..", a hard link) is refused with exit 2 before any work;
#   - a FIFO, a directory or a device as an input is refused at once (it
#     would block forever or read without end);
#   - bench --log-n is bounded; JSON inputs over their size limit are refused.
set -uo pipefail
G=${G16_BIN:-build/g16}
[ -x "$G" ] || { echo "skip: no $G"; exit 77; }
D=$(mktemp -d /tmp/g16_files.XXXXXX)
MNT=""
cleanup() { [ -n "$MNT" ] && umount "$MNT" 2>/dev/null; rm -rf "$D"; }
trap cleanup EXIT
cd "$D"
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
# expect_rc RC PATTERN DESCRIPTION -- command...: runs it, checks its exit
# status and that stderr matches PATTERN.
expect() {
  local rc=$1 pat=$2 what=$3; shift 4
  local got
  "$@" >out.txt 2>err.txt; got=$?
  if [ "$got" -eq "$rc" ] && grep -Eq "$pat" err.txt; then ok "$what"
  else bad "$what: exit $got (want $rc), stderr: $(head -c 300 err.txt)"; fi
}
no_tmp() { # no temporary file left in the directory $1
  if ls "$1" | grep -q '\.tmp\.'; then bad "temporary files left in $1: $(ls "$1" | grep '\.tmp\.')"; fi
}

"$G" synth --curve bn254 --log-n 6 --profile dense --out c.r1cs --witness w.wtns >/dev/null || { echo "FAIL: synth"; exit 1; }
"$G" synth --curve bn254 --log-n 10 --profile dense --out big.r1cs --witness big.wtns >/dev/null || { echo "FAIL: synth"; exit 1; }
"$G" setup --insecure-test-setup --seed 7 c.r1cs c.zkey --vk vk.json 2>/dev/null || { echo "FAIL: setup"; exit 1; }
"$G" prove c.zkey w.wtns p.json pub.json || { echo "FAIL: prove"; exit 1; }

# ---- atomic outputs --------------------------------------------------------
# RLIMIT_FSIZE: any write past the limit fails with EFBIG (SIGXFSZ ignored).
# stderr goes through a pipe: the limit would stop the message to a file too.
limited() { local kb=$1; shift; ( trap '' XFSZ; ulimit -f "$kb"; exec "$@" 2>&1 ) | cat >&2; }
echo OLDPROOF >p_old.json; echo OLDPUB >pub_old.json
expect 2 'write failed|File too large' "prove: a failed write is an error" -- limited 0 "$G" prove c.zkey w.wtns p_old.json pub_old.json
if [ "$(cat p_old.json)" = OLDPROOF ] && [ "$(cat pub_old.json)" = OLDPUB ]; then ok "prove: the old proof.json and public.json are intact"
else bad "prove: a failed write changed the old files: $(head -c 40 p_old.json) / $(head -c 40 pub_old.json)"; fi
echo OLDVK >vk_old.json
expect 2 'write failed|File too large' "zkey export-vk: a failed write is an error" -- limited 0 "$G" zkey export-vk c.zkey vk_old.json
[ "$(cat vk_old.json)" = OLDVK ] && ok "zkey export-vk: the old vk is intact" || bad "zkey export-vk: the old vk changed"
echo OLDR1CS >s_old.r1cs; echo OLDW >s_old.wtns
expect 2 'write failed|File too large' "synth: a failed write is an error" -- limited 0 "$G" synth --curve bn254 --log-n 6 --out s_old.r1cs --witness s_old.wtns
[ "$(cat s_old.r1cs)" = OLDR1CS ] && [ "$(cat s_old.wtns)" = OLDW ] && ok "synth: the old r1cs and wtns are intact" || bad "synth: old outputs changed"
cp c.zkey k_old.zkey
expect 2 'cannot reserve|File too large' "setup: a key over the file size limit is a clean error" -- limited 64 "$G" setup --insecure-test-setup --seed 1 big.r1cs k_old.zkey
cmp -s c.zkey k_old.zkey && ok "setup: a failed setup keeps the old key at its output path" || bad "setup: the old key is gone or changed"
no_tmp "$D"
# A successful write replaces the file (and leaves no temporary file).
"$G" prove c.zkey w.wtns p_old.json pub_old.json && cmp -s <("$G" verify vk.json pub_old.json p_old.json) <(echo "OK: proof is valid") \
  && ok "prove: a good write replaces the old files" || bad "prove: rewrite failed"
no_tmp "$D"

# A full filesystem (root: a 64 KiB tmpfs): setup used to die of SIGBUS.
mkdir -p mnt
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs mnt 2>/dev/null; then
  MNT=$D/mnt
  echo OLDKEY >mnt/k.zkey
  expect 2 'No space left|cannot reserve' "setup on a full filesystem: a clean ENOSPC error" -- "$G" setup --insecure-test-setup --seed 1 big.r1cs mnt/k.zkey
  [ "$(cat mnt/k.zkey)" = OLDKEY ] && ok "setup on a full filesystem keeps the old key" || bad "setup on a full filesystem lost the old key"
  no_tmp mnt
  umount mnt && MNT=""
else
  echo "note: not root or no tmpfs mount: full-filesystem setup case not run"
fi

# ---- outputs that are inputs -----------------------------------------------
cp c.zkey c_copy.zkey; cp w.wtns w_copy.wtns
same='same file'
expect 2 "$same" "prove: proof.json = the key" -- "$G" prove c.zkey w.wtns c.zkey pub2.json
expect 2 "$same" "prove: public.json = the witness" -- "$G" prove c.zkey w.wtns p2.json w.wtns
expect 2 "$same" "prove: proof.json = public.json" -- "$G" prove c.zkey w.wtns out.json out.json
mkdir -p sub
expect 2 "$same" "prove: the same new path through .." -- "$G" prove c.zkey w.wtns sub/../o2.json ./o2.json
ln c.zkey hard.zkey
expect 2 "$same" "prove: a hard link to the key" -- "$G" prove c.zkey w.wtns hard.zkey pub2.json
ln -s w.wtns soft.wtns
expect 2 "$same" "prove: a symlink to the witness" -- "$G" prove c.zkey w.wtns p2.json soft.wtns
expect 2 "$same" "zkey export-vk onto the key" -- "$G" zkey export-vk c.zkey c.zkey
expect 2 "$same" "setup onto the r1cs" -- "$G" setup --insecure-test-setup --seed 1 c.r1cs c.r1cs
expect 2 "$same" "setup: --vk onto the key" -- "$G" setup --insecure-test-setup --seed 1 c.r1cs k2.zkey --vk k2.zkey
expect 2 "$same" "synth: --witness = --out" -- "$G" synth --curve bn254 --log-n 6 --out x.r1cs --witness x.r1cs
cp w.wtns proof-0.json
expect 2 "$same" "prove --batch: a witness among the outputs" -- "$G" prove --batch c.zkey proof-0.json --out-dir .
cmp -s c.zkey c_copy.zkey && cmp -s w.wtns w_copy.wtns && cmp -s w.wtns proof-0.json && ok "inputs untouched by refused commands" \
  || bad "a refused command changed an input"
[ ! -e k2.zkey ] && [ ! -e x.r1cs ] && [ ! -e pub2.json ] && ok "refused commands wrote nothing" || bad "a refused command wrote an output"

# ---- inputs that are not regular files -------------------------------------
mkfifo fifo
nr='not a regular file'
for args in "info fifo" "info ." "prove fifo w.wtns p3.json pub3.json" "prove c.zkey fifo p3.json pub3.json" \
            "verify fifo pub.json p.json" "verify vk.json fifo p.json" "verify vk.json pub.json fifo" \
            "verify vk.json pub.json /dev/zero" "verify . pub.json p.json" "zkey export-vk fifo v3.json" \
            "setup --insecure-test-setup --seed 1 fifo k3.zkey"; do
  # shellcheck disable=SC2086
  expect 2 "$nr" "g16 $args: refused, no hang" -- timeout 10 "$G" $args
done

# ---- bounds ----------------------------------------------------------------
for v in 64 31 0 -1 abc 10x; do
  expect 2 'log-n takes an integer' "bench msm --log-n $v refused" -- "$G" bench msm --log-n "$v"
done
expect 2 'log-n takes an integer' "bench ntt --log-n 64 refused" -- "$G" bench ntt --log-n 64
truncate -s 2M huge_proof.json
expect 2 'limit' "a 2 MiB proof.json is refused by size" -- "$G" verify vk.json pub.json huge_proof.json
truncate -s 65M huge_vk.json
expect 2 'limit' "a 65 MiB verification_key.json is refused by size" -- "$G" verify huge_vk.json pub.json p.json
truncate -s 65M huge_pub.json
expect 2 'limit' "a 65 MiB public.json is refused by size" -- "$G" verify vk.json huge_pub.json p.json

[ "$fail" = 0 ] && echo "test_cli_files: all passed"
exit "$fail"
