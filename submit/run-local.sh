#!/usr/bin/env bash
# Runs bitopk straight from the build, without a Spark installation (spark-submit scripts: see local.sh):
#   submit/run-local.sh [--spark-3.5] [train flags...]     e.g. submit/run-local.sh --epochs 2 --mode unidirectional
# --spark-3.5 (first) runs the Spark 3.5 line (Scala 2.12, with DL4J's Spark masters) instead of the default Spark 4.
# Compiles the modules and writes the job's classpath first when sources changed. Spark is a "provided"
# dependency of the application jar, so this classpath includes it explicitly; --master defaults to local[*].
# The job prints one line per failure (exit codes 1, 2, 130, 143: see job/docs/exit-codes.md); Spark's and DL4J's own
# messages go to <output>/logs/driver-<time>.log, or to the console with --verbose.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PROFILE=() MODULE=job TARGET=target
if [ "${1:-}" = --spark-3.5 ]; then
  PROFILE=(-Pspark-3.5) MODULE=job/dl4j-baselines TARGET=target/spark-3.5
  shift
fi
CLASSES="$ROOT/job/$TARGET/classes"
[ "$MODULE" = job ] || CLASSES="$ROOT/$MODULE/$TARGET/classes:$CLASSES"
CP_FILE="$ROOT/$MODULE/$TARGET/classpath.txt"

stale() {
  [ ! -f "$CP_FILE" ] && return 0
  [ -n "$(find "$ROOT/pom.xml" "$ROOT"/*/pom.xml "$ROOT"/*/src/main "$ROOT"/job/src/line "$ROOT"/job/*/pom.xml \
      "$ROOT"/job/*/src/main -newer "$CP_FILE" -type f 2>/dev/null | head -1)" ]
}
if stale; then
  echo "building bitopk (mvn compile)..." >&2
  # stdout carries only the job's output: Maven's lines (and the colour resets it writes even in batch mode) go
  # to stderr, colourless.
  (cd "$ROOT" && mvn -B -q -Dstyle.color=never "${PROFILE[@]}" -pl "$MODULE" -am compile dependency:build-classpath \
      -Dmdep.outputFile="$TARGET/classpath.txt" -Dmdep.includeScope=compile) >&2
fi

# Spark's --add-opens list for JDK 17 (spark-launcher JavaModuleOptions); java -cp does not read it from a jar.
# Defined once, in the pom's spark.jvm.opens property.
SPARK_OPENS="$(sed -n 's:.*<spark.jvm.opens>\(.*\)</spark.jvm.opens>.*:\1:p' "$ROOT/pom.xml")"
if [ -z "$SPARK_OPENS" ]; then
  echo "bitopk: $ROOT/pom.xml defines no spark.jvm.opens property; expected Spark's JVM options there" >&2
  exit 1
fi

# Spark runs one task per core; ND4J's own OpenMP threads would oversubscribe them.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
# shellcheck disable=SC2086
exec java ${JAVA_OPTS:-} $SPARK_OPENS -cp "$CLASSES:$(cat "$CP_FILE")" org.bitopk.cli.Main "$@"
