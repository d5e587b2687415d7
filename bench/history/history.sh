#!/usr/bin/env bash
# History store: builds a history of RUNS runs (default 10,000) over SERIES series (default 10), each run with ~30
# metrics and 4 HdrHistograms, in a fresh SQLite file and, when Debian's PostgreSQL binaries are installed (package
# postgresql) or PROFILEDROLLOUT_TEST_POSTGRES_URL names a server, in a fresh PostgreSQL database; then times a
# regression check (values() of the last 20 runs for the 5 key metrics + Student's t) against one primary-key lookup
# on a plain JDBC connection to the same database, in the same run. Prints medians and the ratio; the issue's target
# for the check is < 200 ms. Nothing is asserted. Loopback only.
# Usage: bench/history/history.sh [runs] [series] [repeats]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-10000}
series=${2:-10}
repeats=${3:-500}
work=$(mktemp -d)
pg_ctl=
pg_data=
cleanup() {
  if [ -n "$pg_ctl" ]; then as_postgres "$pg_ctl" -D "$pg_data" -m immediate -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# The framework's classes and dependencies, compiled offline when missing.
[ -d framework/target/classes/db/history ] || mvn -B -q -o -pl framework -am -DskipTests compile
mvn -B -q -o -pl framework dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" >/dev/null
cp="framework/target/classes:$(cat "$work/cp.txt")"
mkdir -p "$work/classes"
javac -cp "$cp" -d "$work/classes" bench/history/HistoryBench.java
bench() { java -Xmx1g -cp "$cp:$work/classes" HistoryBench "$@"; }

echo "== SQLite"
url="jdbc:sqlite:$work/history.db"
bench build "$url" - - "$runs" "$series"
echo "file: $(du -h "$work/history.db" | cut -f1)"
bench check "$url" - - "$repeats"

if [ -n "${PROFILEDROLLOUT_TEST_POSTGRES_URL:-}" ]; then
  echo "== PostgreSQL ($PROFILEDROLLOUT_TEST_POSTGRES_URL; the benchmark writes its tables there)"
  url=$PROFILEDROLLOUT_TEST_POSTGRES_URL
  user=${PROFILEDROLLOUT_TEST_POSTGRES_USER:--}
  password=${PROFILEDROLLOUT_TEST_POSTGRES_PASSWORD:--}
else
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -z "$bin" ]; then
    echo "== PostgreSQL: skipped (no /usr/lib/postgresql/*/bin; apt-get install postgresql)"
    exit 0
  fi
  echo "== PostgreSQL ($("$bin/postgres" --version | awk '{print $NF}'), a temporary server on loopback)"
  pg_dir=$work/postgres
  mkdir -p "$pg_dir"
  [ "$(id -u)" = 0 ] && chown postgres "$pg_dir" && chmod 755 "$work"
  pg_data=$pg_dir/data
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  as_postgres "$bin/initdb" -D "$pg_data" -U postgres --auth=trust --encoding=UTF8 --locale=C >/dev/null
  pg_ctl=$bin/pg_ctl
  as_postgres "$pg_ctl" -D "$pg_data" -l "$pg_dir/server.log" -w \
    -o "-p $port -k $pg_dir -c listen_addresses=127.0.0.1" start >/dev/null
  url="jdbc:postgresql://127.0.0.1:$port/postgres"
  user=postgres
  password=-
fi
bench build "$url" "$user" "$password" "$runs" "$series"
bench check "$url" "$user" "$password" "$repeats"
