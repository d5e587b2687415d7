#!/usr/bin/env bash
# Reruns of unchanged code: runs the example suite (mvn -P examples verify, the README's main job) N times against the
# embedded simulator with one history store shared by all runs, and tallies the history verdicts every run's
# summary.json holds (the examples declare @RegressionCheck, DecodeBudgetTest asserts history().hasNoRegression()).
# The issue's check: at the default thresholds, 0 REGRESSION verdicts over at least 20 reruns.
# Usage: bench/history/reruns.sh [runs]   (default 20; about a minute per run on the 2-core machine; needs python3)
# Prints one line per run and a closing tally; every REGRESSION verdict is printed with its text. MVN_OFFLINE=1 adds -o.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-20}
command -v python3 >/dev/null || { echo "reruns: python3 is needed to read summary.json" >&2; exit 2; }
work=$(mktemp -d)
export PROFILEDROLLOUT_HISTORY_URL="jdbc:sqlite:$work/history.db"
echo "history store: $work/history.db; machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$runs"); do
  start=$(date +%s)
  mvn -B ${MVN_OFFLINE:+-o} -P examples verify -Dmaven.test.failure.ignore=true > "$work/run-$i.log" 2>&1 || true
  python3 - "$i" "$(( $(date +%s) - start ))" "$work/tally.tsv" <<'PY'
import glob, json, sys
run, seconds, tally = sys.argv[1], sys.argv[2], sys.argv[3]
seen, counts, regressions = set(), {}, []
def blocks(summary):
    if isinstance(summary.get("history"), dict):
        yield summary["history"]
    for phase in summary.get("phases") or []:
        if isinstance(phase.get("history"), dict):
            yield phase["history"]
for path in glob.glob("examples/target/profiled-rollout/**/summary.json", recursive=True):
    with open(path) as f:
        summary = json.load(f)
    for block in blocks(summary):
        for verdict in block.get("verdicts") or []:
            key = (block.get("testId"), block.get("runId"), verdict.get("metric"))
            if key in seen:
                continue  # a phase's summary.json repeats its test's phase block
            seen.add(key)
            change = verdict.get("change")
            counts[change] = counts.get(change, 0) + 1
            if change == "REGRESSION":
                regressions.append(f"{block.get('testId')}: {verdict.get('description')}")
order = ["REGRESSION", "IMPROVEMENT", "NO_CHANGE", "INSUFFICIENT_HISTORY"]
line = "  ".join(f"{k} {counts.get(k, 0)}" for k in order)
print(f"run {run:>3} ({seconds} s): {line}")
for r in regressions:
    print(f"    {r}")
with open(tally, "a") as f:
    f.write("\t".join([run] + [str(counts.get(k, 0)) for k in order]) + "\n")
PY
done
awk -F'\t' '{r+=$2; i+=$3; n+=$4; h+=$5} END {printf "total over %d runs: REGRESSION %d  IMPROVEMENT %d  NO_CHANGE %d  INSUFFICIENT_HISTORY %d\n", NR, r, i, n, h}' "$work/tally.tsv"
echo "machine: load average $(cut -d' ' -f1-3 /proc/loadavg) after the runs; logs in $work"
