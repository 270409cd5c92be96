#!/usr/bin/env bash
# The driver's time per round over d, P and rho (DriverRoundBenchmark, JMH), with a memory pass over d in the same
# run, then the fit of the driver's cost (DriverCostReport): time = a*P*k + b*d + c, its residuals and the target.
#   job/bench/driver.sh [OUT_DIR=runs/driver-bench] [JMH options, e.g. -p dimension=25000000]
# Each point runs in its own JVM; d = 25M at P = 256, rho = 0.01 needs about 6 GB of heap.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
OUT="${1:-runs/driver-bench}"
shift || true
mkdir -p "$OUT"
mvn -B -q -o -pl job -am test-compile dependency:build-classpath -Dmdep.outputFile=target/test-classpath.txt \
    -Dmdep.includeScope=test
OPENS="$(sed -n 's:.*<spark.jvm.opens>\(.*\)</spark.jvm.opens>.*:\1:p' pom.xml)"
CP="job/target/test-classes:job/target/classes:$(cat job/target/test-classpath.txt)"
export SPARK_LOCAL_IP=127.0.0.1
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
# shellcheck disable=SC2086
java $OPENS -cp "$CP" org.bitopk.job.engine.DriverRoundBenchmark 'DriverRoundBenchmark.round$' \
    -rf json -rff "$OUT/round-$STAMP.json" "$@" | tee "$OUT/round-$STAMP.log"
# shellcheck disable=SC2086
java $OPENS -cp "$CP" org.bitopk.job.engine.DriverRoundBenchmark 'DriverRoundBenchmark.memoryPass$' \
    -p workers=8 -p density=0.001 -rf json -rff "$OUT/pass-$STAMP.json" "$@" | tee "$OUT/pass-$STAMP.log"
java -cp "$CP" org.bitopk.job.bench.DriverCostReport "$OUT" | tee "$OUT/report-$STAMP.txt"
