#!/usr/bin/env bash
# End-to-end benchmark of the training job on local[2] (see EndToEndBenchmark): per-round time split, the
# Spark floor and the compute floor (the same worker steps without Spark) measured in the same run.
#   job/bench/e2e.sh [--spark-3.5] [rounds=200] [workers=4,20,50,100]
# --spark-3.5 runs it on the Spark 3.5 line (Scala 2.12) instead of the default Spark 4 line.
# BENCH_OPTS: -Dbitopk.batch=10 -Dbitopk.density=0.001 (the papers'), -Dbitopk.tasks=S (default min(P, slots)),
# -Dbitopk.window=N (update window), -Dbitopk.dl4j=true (adds DL4J's ParameterAveragingTrainingMaster; Spark 3.5 line
# only, where job/dl4j-baselines has it).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
PROFILE=() MODULE=job TARGET=target
if [[ "${1:-}" == --spark-3.5 ]]; then
  PROFILE=(-Pspark-3.5) MODULE=job/dl4j-baselines TARGET=target/spark-3.5
  shift
fi
mvn -B -q "${PROFILE[@]}" -pl "$MODULE" -am test-compile dependency:build-classpath \
    -Dmdep.outputFile="$TARGET/test-classpath.txt" -Dmdep.includeScope=test
CLASSES="job/$TARGET/test-classes:job/$TARGET/classes"
if [[ "$MODULE" != job ]]; then
  CLASSES="$MODULE/$TARGET/test-classes:$MODULE/$TARGET/classes:$CLASSES"
fi
OPENS="$(sed -n 's:.*<spark.jvm.opens>\(.*\)</spark.jvm.opens>.*:\1:p' pom.xml)"
export OMP_NUM_THREADS=1 SPARK_LOCAL_IP=127.0.0.1
# shellcheck disable=SC2086
exec java -Xmx6g ${BENCH_OPTS:-} $OPENS -cp "$CLASSES:$(cat "$MODULE/$TARGET/test-classpath.txt")" \
    org.bitopk.job.bench.EndToEndBenchmark "$@"
