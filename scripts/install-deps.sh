#!/usr/bin/env bash
# Installs what g16 needs on a fresh Debian 12 machine (run as root or with
# sudo): the compiler tool chain, the -dev libraries, dpkg-dev (dpkg-shlibdeps
# for the .deb), Node.js for the oracle tools, valgrind (its memcheck.h: the
# constant-time test), nasm and nlohmann-json3-dev (tests/test_witgen.sh
# builds circom's C++ witness generator), prometheus (its promtool checks
# /metrics and examples/prometheus/alerts.yml in tests/test_daemon_metrics.sh;
# the package also installs the Prometheus server, ~100 MB, enabled as a
# service where systemd runs), and the pinned npm packages in tests/js (from
# the lockfile).
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(build-essential cmake pkg-config python3 libgmp-dev libjansson-dev
      clang libclang-rt-14-dev nodejs npm dpkg-dev
      libmicrohttpd-dev libsqlite3-dev libcurl4-openssl-dev libpq-dev postgresql curl
      valgrind nasm nlohmann-json3-dev prometheus)
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
# chromium: tests/test_dashboard.sh drives it headless (playwright-core from
# tests/js, which downloads no browser).
PKGS+=(chromium)

missing=()
for p in "${PKGS[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# A node from elsewhere (e.g. nvm) is fine: skip Debian's nodejs/npm then.
if command -v node >/dev/null && command -v npm >/dev/null; then
    tmp=()
    for p in "${missing[@]}"; do [ "$p" = nodejs ] || [ "$p" = npm ] || tmp+=("$p"); done
    missing=("${tmp[@]+"${tmp[@]}"}")
fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Pinned oracle tools (snarkjs, circom2, circomlib, @noble/curves) and
# playwright-core (the dashboard test).
stamp=tests/js/node_modules/.g16-lock
if [ ! -f "$stamp" ] || ! cmp -s tests/js/package-lock.json "$stamp"; then
    echo "install-deps: npm ci (tests/js)"
    npm ci --prefix tests/js --no-audit --no-fund --loglevel=error
    cp tests/js/package-lock.json "$stamp"
fi
