#!/usr/bin/env bash
# Trace reader: streaming KinetoTraceReader vs a whole-file Jackson tree baseline, on a large trace generated from a
# real one in testdata/traces. Each measurement runs in its own JVM with the same heap limit; prints medians of
# N runs and the ratios baseline / ours (above 1 = ours is better). Usage: bench/trace-reader.sh [copies] [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
copies=${1:-40}
runs=${2:-3}
heap=${HEAP:-4g}
jar=cli/target/profiled-rollout.jar
src=testdata/traces/hta/ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz
[ -f "$jar" ] || mvn -B -q -DskipTests package
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
big=$work/big.pt.trace.json.gz
java -cp "$jar" bench/TraceReaderBench.java generate "$src" "$big" "$copies"
raw=$(zcat "$big" | wc -c)
echo "trace: $copies copies of $(basename "$src"): $(du -h "$big" | cut -f1) gzip, $((raw / 1048576)) MiB JSON"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A secs mem total
for mode in streaming tree; do
  : > "$work/$mode"
  for _ in $(seq "$runs"); do
    java -Xmx"$heap" -XX:+UseSerialGC -cp "$jar" bench/TraceReaderBench.java "$mode" "$big" >> "$work/$mode"
  done
  secs[$mode]=$(cut -d' ' -f2 "$work/$mode" | median)
  mem[$mode]=$(cut -d' ' -f3 "$work/$mode" | median)
  total[$mode]=$(cut -d' ' -f4 "$work/$mode" | head -1)
  echo "$mode: median ${secs[$mode]} s, peak heap ${mem[$mode]} MiB, kernel total ${total[$mode]} ns"
done
[ "${total[streaming]}" = "${total[tree]}" ] || { echo "kernel totals differ" >&2; exit 1; }
awk -v ts="${secs[tree]}" -v ss="${secs[streaming]}" -v tm="${mem[tree]}" -v sm="${mem[streaming]}" \
  'BEGIN { printf "ratio tree/streaming: time %.2fx, peak heap %.1fx\n", ts/ss, tm/sm }'
