#!/usr/bin/env bash
# libg16.so exports the public API only: every defined dynamic symbol starts
# with g16_, and every G16_API function of include/g16.h and of the testing
# header include/g16_testing.h is exported.
set -uo pipefail
so=${G16_BUILD_DIR:-build}/libg16.so
[ -f "$so" ] || { echo "missing $so"; exit 1; }
fail=0; pass=0
others=$(nm -D --defined-only "$so" | awk '$2 ~ /[TtDdBbRrVvWw]/ {print $3}' | grep -v '^g16_' | grep -v '^_' || true)
if [ -n "$others" ]; then echo "FAIL: non-g16_ symbols exported:"; echo "$others" | head; fail=$((fail+1)); else pass=$((pass+1)); fi
for f in $(cat include/g16.h include/g16_testing.h | grep -E '^G16_API' | grep -oE 'g16_[a-z0-9_]+\(' | tr -d '('); do
  if nm -D --defined-only "$so" | awk '{print $3}' | grep -qx "$f"; then pass=$((pass+1)); else echo "FAIL: $f not exported"; fail=$((fail+1)); fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
