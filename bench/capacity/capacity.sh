#!/usr/bin/env bash
# Capacity search as a user runs it (issue 26 §4): `profiled-rollout capacity` against `profiled-rollout simulate`
# with the default search and p99 SLOs, timed as a whole command, then the same search, same flags and SLOs, against
# nginx serving a static 128-token SSE completion on loopback. nginx answers at once, so the highest rate that search
# finds there is where our load generator (not the server) stops keeping its schedule: the client's ceiling on this
# machine, in the same run. The ratio says how much of the simulator's capacity the client itself could have limited.
# Usage: bench/capacity/capacity.sh [SLO...]   (default 'ttft.p99<500ms' 'tpot.p99<50ms'; needs root for apt-get when
#   nginx is absent). Loopback only.
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib/sse-nginx.sh
slos=("$@")
[ ${#slos[@]} -gt 0 ] || slos=('ttft.p99<500ms' 'tpot.p99<50ms')
slo_args=()
for s in "${slos[@]}"; do slo_args+=(--slo "$s"); done
jar=cli/target/profiled-rollout.jar
sim_port=${SIM_PORT:-18600}
nginx_port=${NGINX_PORT:-18601}
command -v nginx >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx-light >/dev/null
[ -f "$jar" ] || mvn -B -q -o -DskipTests package
work=$(mktemp -d)
chmod 755 "$work"   # nginx workers run as an unprivileged user
sim_pid=
nginx_pid=
cleanup() {
  [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null
  wait 2>/dev/null; rm -rf "$work"
}
trap cleanup EXIT

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before the runs"
java -jar "$jar" simulate --port "$sim_port" > "$work/sim.log" 2>&1 &
sim_pid=$!
for _ in $(seq 100); do curl -fs -o /dev/null "http://127.0.0.1:$sim_port/health" && break; sleep 0.1; done

sse_body "$work/body.sse" 1024
sse_nginx_start "$work" "$nginx_port" 1
nginx_pid=$SSE_NGINX_PID

# one search, timed as a whole process (wall seconds); its JSON goes to $2
search() {
  local url=$1 out=$2; shift 2
  local t0 t1
  t0=$(date +%s.%N)
  java -jar "$jar" capacity --url "$url" "${slo_args[@]}" --format json "$@" > "$out" 2> "$out.log"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }'
}
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['capacity']; print(d.get(sys.argv[2]))" "$1" "$2"; }
stages() { python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['stages']))" "$1"; }

sim_s=$(search "http://127.0.0.1:$sim_port" "$work/sim.json")
echo "capacity against simulate (default search, SLOs ${slos[*]}): $(field "$work/sim.json" requestRate) req/s," \
  "status $(field "$work/sim.json" status), bracket [$(field "$work/sim.json" lower), $(field "$work/sim.json" upper)]," \
  "$(stages "$work/sim.json") stages, ${sim_s} s wall (goal < 120 s)"
# the client's ceiling: the same search from 64 req/s up to 20,000 against a server that answers at once
ngx_s=$(search "http://127.0.0.1:$nginx_port" "$work/nginx.json" --model bench --start 64 --max 20000)
echo "client ceiling (same search against nginx, 1 worker, static 128-token stream): $(field "$work/nginx.json" requestRate)" \
  "req/s found, status $(field "$work/nginx.json" status), bracket [$(field "$work/nginx.json" lower)," \
  "$(field "$work/nginx.json" upper)], $(stages "$work/nginx.json") stages, ${ngx_s} s"
python3 - "$work/sim.json" "$work/nginx.json" <<'PY'
import json, sys
sim = json.load(open(sys.argv[1]))['capacity']
ngx = json.load(open(sys.argv[2]))['capacity']
cap = sim.get('requestRate')
# the client sustained at least the lower end of its bracket against nginx
ceiling = ngx.get('requestRate') or ngx.get('lower')
if cap and ceiling:
    print(f"the simulator's capacity is {100 * cap / ceiling:.1f} % of the client's ceiling on this machine"
          f" ({cap:.1f} of {ceiling:.0f} req/s)")
else:
    print("no ratio: " + (sim.get('message') or '') + ' / ' + (ngx.get('message') or ''))
PY
echo "machine: load average $(cut -d' ' -f1-3 /proc/loadavg) after the runs"
