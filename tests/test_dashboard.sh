#!/usr/bin/env bash
# The dashboard (docs/dashboard.md) in a real browser: g16d on loopback with a
# token, two workers and jobs running; Debian's chromium headless driven by
# playwright-core (tests/js, pinned) through tests/js/dashboard.cjs. Also:
# the static files need no token, the data does. The screenshot is left in
# $G16_BUILD_DIR/test_dashboard/dashboard.png.
set -euo pipefail
. "$(dirname "$0")/daemon/lib.sh"
CHROMIUM=${G16_CHROMIUM:-/usr/bin/chromium}
JS=$(cd "$(dirname "$0")/js" && pwd)
command -v node >/dev/null || { echo "SKIP: node missing"; exit 77; }
[ -x "$CHROMIUM" ] || { echo "SKIP: $CHROMIUM missing (apt-get install chromium)"; exit 77; }
[ -d "$JS/node_modules/playwright-core" ] || { echo "SKIP: playwright-core missing (npm ci --prefix tests/js)"; exit 77; }
ART=${G16_BUILD_DIR:-$T}/test_dashboard
mkdir -p "$ART"

make_key "$T/k" 13 4
TOKEN=dash-token-0123456789abcdef
start_g16d --token "$TOKEN" --workers 2

# static files: no token; data: the token
[ "$(curl -s -o "$T/index.html" -w '%{http_code} %{content_type}' "$ADDR/")" = "200 text/html; charset=utf-8" ] ||
    fail "GET / without a token"
grep -q '<script src="/ui/app.js"' "$T/index.html" || fail "index.html"
for f in app.js style.css; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$ADDR/ui/$f")" = 200 ] || fail "GET /ui/$f"
done
[ "$(curl -s -o /dev/null -w '%{http_code}' -I "$ADDR/ui/app.js")" = 200 ] || fail "HEAD /ui/app.js"
TOKEN= expect GET /ui/no-such-file - 404 not_found
TOKEN= expect POST /ui/app.js '{}' 405 method_not_allowed
TOKEN= expect GET /v1/status - 401 unauthorized
TOKEN= expect GET /v1/jobs - 401 unauthorized
TOKEN= expect GET /v1/timeline - 401 unauthorized

expect POST /v1/keys "{\"id\":\"k\",\"path\":\"$T/k/c.zkey\"}" 201
# work for the page to watch: 24 partitions over the four priorities
W=$(python3 -c "import json; print(json.dumps([{'path': '$T/k/w.%d.wtns' % (i % 4)} for i in range(6)]))")
for p in normal low high normal; do
    expect POST /v1/jobs "{\"key\":\"k\",\"priority\":\"$p\",\"witnesses\":$W}" 202
done

node "$JS/dashboard.cjs" "$ADDR" "$TOKEN" k "$T/k/w.1.wtns" "$ART" || fail "the browser test failed"
[ -s "$ART/dashboard.png" ] || fail "no screenshot"
stop_g16d
echo "OK: dashboard (screenshot $ART/dashboard.png)"
