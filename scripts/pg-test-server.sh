#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests (docs/daemon-store.md).
#   scripts/pg-test-server.sh start DIR   initdb into DIR/data, start a server
#                                         listening only on a unix socket in DIR,
#                                         print its URL (also written to DIR/url)
#   scripts/pg-test-server.sh stop DIR    stop it and delete DIR/data
# Run as root, the cluster belongs to the "postgres" user (or $G16_PG_USER, or
# "nobody" when there is no such user): the server refuses to run as root. Authentication is "trust" (the socket lives
# in DIR only). fsync is off: a test server needs no durability.
# Exit status 1 with the logs on stderr when the server cannot start.
set -euo pipefail
cmd=${1:-}
dir=${2:-}
if [[ -z $cmd || -z $dir ]]; then
    echo "usage: $0 start|stop DIR" >&2
    exit 2
fi

bin=${G16_PG_BIN:-}
if [[ -z $bin ]]; then
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do bin=$d; done
    if [[ -z $bin ]] && command -v initdb >/dev/null; then bin=$(dirname "$(command -v initdb)"); fi
fi
if [[ -z $bin || ! -x $bin/initdb || ! -x $bin/pg_ctl ]]; then
    echo "$0: PostgreSQL server binaries not found (set G16_PG_BIN)" >&2
    exit 1
fi

as=()
if [[ $(id -u) == 0 ]]; then
    user=${G16_PG_USER:-postgres}
    id -u "$user" >/dev/null 2>&1 || user=nobody
    as=(runuser -u "$user" --)
fi

case $cmd in
start)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    # the socket path (DIR/.s.PGSQL.PORT) must fit in sun_path (107 bytes)
    if (( ${#dir} > 80 )); then
        echo "$0: '$dir' is too long for a unix socket path" >&2
        exit 1
    fi
    if [[ ${#as[@]} -gt 0 ]]; then
        chown "$user" "$dir"
        chmod 700 "$dir"
    fi
    port=$(( 20000 + RANDOM % 20000 ))
    if ! "${as[@]}" "$bin/initdb" -D "$dir/data" -A trust -U g16 -E UTF8 --no-sync >"$dir/initdb.log" 2>&1; then
        echo "$0: initdb failed:" >&2
        cat "$dir/initdb.log" >&2
        exit 1
    fi
    if ! "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c port=$port -c fsync=off -c max_connections=100" \
        start >"$dir/pg_ctl.log" 2>&1; then
        echo "$0: the server did not start:" >&2
        cat "$dir/pg_ctl.log" "$dir/server.log" >&2 || true
        exit 1
    fi
    url="postgresql:///postgres?host=$dir&port=$port&user=g16"
    echo "$url" >"$dir/url"
    echo "$url"
    ;;
stop)
    if [[ -d $dir/data ]]; then
        "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
        rm -rf "$dir/data"
    fi
    ;;
*)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
