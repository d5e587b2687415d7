#!/usr/bin/env bash
# Stage hand-over gap of closed-loop sweeps against the embedded simulator, with a bare thread hand-off measured in
# the same JVM as the baseline (see StageGapBench.java).
# Usage: bench/stage-gap/stage-gap.sh [sweeps] [stagesPerSweep]
set -euo pipefail
cd "$(dirname "$0")/../.."
jar=cli/target/profiled-rollout.jar
[ -f "$jar" ] || mvn -B -q -o -DskipTests -pl cli -am package
java -cp "$jar" bench/stage-gap/StageGapBench.java "${1:-6}" "${2:-20}"
