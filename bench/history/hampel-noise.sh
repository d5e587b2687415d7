#!/usr/bin/env bash
# Student's t on pure normal noise with and without the Hampel identifier (HampelNoise.java): the false-alarm rate per
# window length at a boundary. Usage: bench/history/hampel-noise.sh [windows] [boundary] [k] [lengths...]
#   (defaults 200000 0.999 5 and lengths 3 5 7 10 12 15 20). About a minute on two cores at the defaults.
set -euo pipefail
cd "$(dirname "$0")/../.."
windows=${1:-200000}
boundary=${2:-0.999}
k=${3:-5}
shift $(( $# < 3 ? $# : 3 ))
lengths=("$@")
[ ${#lengths[@]} -gt 0 ] || lengths=(3 5 7 10 12 15 20)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mvn -B -q -o -pl framework -am -DskipTests compile
mvn -B -q -o -pl framework dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" >/dev/null
cp="framework/target/classes:$(cat "$work/cp.txt")"
javac -cp "$cp" -d "$work" bench/history/HampelNoise.java
java -cp "$cp:$work" HampelNoise "$windows" "$boundary" "$k" "${lengths[@]}"
