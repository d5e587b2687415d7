#!/usr/bin/env bash
# Load generator overhead: our client against two zero-latency servers serving the same static 128-token SSE body
# on loopback, each one's own ceiling measured with wrk in the same run: nginx (as in the issue's anchors) and
# sse-server.c, which also stamps each request on CLOCK_MONOTONIC so that TTFT splits into the client's and the
# server's parts (see LoadgenBench.java). Prints the figures and their ratios to the anchors of issue 4 (a Python
# aiohttp client built like vLLM's: ~130,000 SSE events/s at 64-way, +62 ms TTFT p50, Poisson lag p99 2.3 ms at
# 200 req/s, 4.2 ms at 500, 25 ms at 1,000). Loopback only.
# Usage: bench/loadgen/loadgen.sh [closedSeconds] [poissonSeconds]
#   (needs root for apt-get when nginx, wrk or gcc are absent)
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib/sse-nginx.sh
closed_s=${1:-10}
poisson_s=${2:-5}
port=${PORT:-18080}
stamp_port=$((port + 1))
jar=cli/target/profiled-rollout.jar
if ! command -v nginx >/dev/null || ! command -v wrk >/dev/null || ! command -v gcc >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx-light wrk gcc libc6-dev >/dev/null
fi
[ -f "$jar" ] || mvn -B -q -DskipTests package
work=$(mktemp -d)
chmod 755 "$work"   # nginx workers run as an unprivileged user
nginx_pid=
stamp_pid=
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null
  [ -n "$stamp_pid" ] && kill "$stamp_pid" 2>/dev/null
  wait 2>/dev/null; rm -rf "$work"
}
trap cleanup EXIT

body=$work/body.sse
sse_body "$body" 16
sse_nginx_start "$work" "$port" auto
nginx_pid=$SSE_NGINX_PID
gcc -O2 -o "$work/sse-server" bench/loadgen/sse-server.c
"$work/sse-server" "$stamp_port" "$body" &
stamp_pid=$!
for _ in $(seq 50); do curl -fs -o /dev/null "http://127.0.0.1:$stamp_port/stamps" && break; sleep 0.1; done
events=$(curl -fsS -X POST "http://127.0.0.1:$port/v1/completions" -H 'Content-Type: application/json' -d '{}' | grep -c '^data: ')
echo "machine: $(nproc) cores, load average before the run: $(cut -d' ' -f1-3 /proc/loadavg) (other processes share these cores)"
echo "server: nginx $(nginx -v 2>&1 | sed 's/.*\///'), worker_processes auto, static body of $events SSE events ($(wc -c < "$body") bytes); $(nproc) cores"

cat > "$work/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"model":"bench","prompt":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16],"max_tokens":128,"stream":true}'
wrk.headers["Content-Type"] = "application/json"
LUA
wrk_out=$(wrk -t2 -c64 -d5s -s "$work/post.lua" "http://127.0.0.1:$port/v1/completions")
nginx_rps=$(echo "$wrk_out" | awk '/Requests\/sec/ {print $2}')
echo "nginx ceiling (wrk -t2 -c64, POST, 5 s): $nginx_rps req/s = $(awk -v r="$nginx_rps" -v e="$events" 'BEGIN{printf "%.0f", r*e}') SSE events/s"
wrk_out=$(wrk -t2 -c64 -d5s --latency -s "$work/post.lua" "http://127.0.0.1:$stamp_port/v1/completions")
stamp_rps=$(echo "$wrk_out" | awk '/Requests\/sec/ {print $2}')
# wrk's latency percentiles in ms (it prints us, ms or s)
wrk_ms() { echo "$wrk_out" | awk -v p="$1" '$1 == p { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
  printf "%.3f", (u == "us" ? v / 1000 : (u == "s" ? v * 1000 : v)) }'; }
wrk50=$(wrk_ms 50%); wrk99=$(wrk_ms 99%)
echo "sse-server ceiling (wrk -t2 -c64, POST, 5 s): $stamp_rps req/s (single-threaded epoll, stamps every request);" \
  "wrk's own latency there (a C client that parses no SSE; the server's part is ~0.01 ms): p50 $wrk50 ms, p99 $wrk99 ms"

out=$work/ours
# CPU time the hypervisor gave to others while the client ran ("steal", /proc/stat): a VM neighbour's burst shows
# here, and explains a run whose tail latencies jump
steal() { awk '$1 == "cpu" {print $9}' /proc/stat; }
steal0=$(steal); t0=$(date +%s.%N)
java -Xms6g -Xmx6g -Xmn3g -XX:+AlwaysPreTouch -XX:+UseParallelGC -cp "$jar" bench/loadgen/LoadgenBench.java "http://127.0.0.1:$port" \
  "http://127.0.0.1:$stamp_port" "$closed_s" "$poisson_s" | tee "$out"
steal1=$(steal); t1=$(date +%s.%N)
awk -v s="$((steal1 - steal0))" -v hz="$(getconf CLK_TCK)" -v a="$t0" -v b="$t1" -v n="$(nproc)" \
  'BEGIN { printf "cpu steal during the client run: %.2f s of %.0f s x %d cores (%.2f%%)\n", s/hz, b-a, n, 100*s/hz/((b-a)*n) }'
get() { awk -v k="$1" '$1 == k {print $2}' "$out"; }
echo "--- against the anchors (aiohttp client like vLLM's, same kind of 2-core machine) ---"
awk -v ev="$(get closed64_sse_events_per_s)" -v rps="$(get closed64_req_per_s)" -v ng="$nginx_rps" \
    -v cpu="$(get closed64_client_cpu_us_per_request)" -v t50="$(get closed64_ttft_p50_ms)" -v t99="$(get closed64_ttft_p99_ms)" \
    -v l500="$(get poisson500_lag_p99_ms)" -v l1000="$(get poisson1000_lag_p99_ms)" \
    -v f500="$(get poisson500_handoff_floor_p99_ms)" -v f1000="$(get poisson1000_handoff_floor_p99_ms)" \
    -v a50="$(get stamped64_client_added_p50_ms)" -v a99="$(get stamped64_client_added_p99_ms)" \
    -v s99="$(get stamped64_server_p99_ms)" -v q99="$(get stamped64_server_queue_p99_ms)" \
    -v cs99="$(get stamped64_client_send_p99_ms)" -v cr99="$(get stamped64_client_receive_p99_ms)" \
    -v st50="$(get stamped64_ttft_p50_ms)" -v st99="$(get stamped64_ttft_p99_ms)" -v w50="$wrk50" -v w99="$wrk99" -v srps="$(get stamped64_req_per_s)" -v sng="$stamp_rps" \
    -v threads="$(get client_loop_threads)" 'BEGIN {
  printf "client: %d event loop thread(s) (profiledrollout.load.threads)\n", threads
  printf "64-way closed loop: %.0f req/s, %.0f SSE events/s = %.2fx the anchor 130,000 (goal >= 5x); %.0f%% of nginx ceiling; client CPU %.1f us per request\n", rps, ev, ev/130000, 100*rps/ng, cpu
  printf "client TTFT in the 64-way loop: p50 %.3f ms (anchor 62 ms; anchor/ours %.2fx), p99 %.3f ms\n", t50, 62/t50, t99
  printf "64-way loop against sse-server: %.0f req/s (%.0f%% of its wrk ceiling), TTFT p50 %.3f ms, p99 %.3f ms\n", srps, 100*srps/sng, st50, st99
  printf "  split (p99 of each part): client send %.3f ms, server queue %.3f ms, server %.3f ms, client receive %.3f ms\n", cs99, q99, s99, cr99
  printf "  client-added TTFT (client send + client receive): p50 %.3f ms, p99 %.3f ms (goal < 1 ms); wrk in the same saturated loop: p50 %.3f ms, p99 %.3f ms (wrk/ours at p99 %.2fx)\n", a50, a99, w50, w99, w99/a99
  printf "Poisson lag p99: %.3f ms at 500 req/s (anchor 4.2 ms; anchor/ours %.2fx), %.3f ms at 1000 req/s (anchor 25 ms; anchor/ours %.2fx; goal < 1 ms)\n", l500, 4.2/l500, l1000, 25/l1000
  printf "  machine floor (a bare thread hand-off on the same schedule, right after): p99 %.3f ms at 500, %.3f ms at 1000 req/s (ours/floor %.2fx, %.2fx)\n", f500, f1000, l500/f500, l1000/f1000
}'
