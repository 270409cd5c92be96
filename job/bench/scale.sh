#!/usr/bin/env bash
# The round cost model on loopback: runs job/experiments/scale-loopback.json (the synthetic-gradient problem on
# local[2]), fits the model on its P = 2 and 8 points, checks it on P = 4 and 16, and prints the projection
# (RoundCostReport). The driver's constants come from job/bench/driver.sh's report.
#   job/bench/scale.sh OUT_DIR A_NS_PER_COORDINATE B_NS_PER_ELEMENT C_MS
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
OUT="${1:?output directory}"
JAVA_OPTS="${JAVA_OPTS:--Xmx6g}" submit/run-local.sh experiment --grid job/experiments/scale-loopback.json \
    --out "$OUT" --master 'local[2]' --quiet
mvn -B -q -o -pl job -am test-compile dependency:build-classpath -Dmdep.outputFile=target/test-classpath.txt \
    -Dmdep.includeScope=test
java -cp "job/target/test-classes:job/target/classes:$(cat job/target/test-classpath.txt)" \
    org.bitopk.job.bench.RoundCostReport "$OUT" "$2" "$3" "$4" | tee "$OUT/report.txt"
