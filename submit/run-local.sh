#!/usr/bin/env bash
# Runs bitopk straight from the build, without a Spark installation (spark-submit scripts: see local.sh):
#   submit/run-local.sh [train flags...]     e.g. submit/run-local.sh --epochs 2 --mode unidirectional
# Compiles the modules and writes the job's classpath first when sources changed. Spark is a "provided"
# dependency of the application jar, so this classpath includes it explicitly; --master defaults to local[*].
# The job prints one line per failure (exit codes 1, 2, 130, 143: see job/docs/exit-codes.md); Spark's and DL4J's own
# messages go to <output>/logs/driver-<time>.log, or to the console with --verbose.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CLASSES="$ROOT/job/target/classes"
CP_FILE="$ROOT/job/target/classpath.txt"

stale() {
  [ ! -f "$CP_FILE" ] && return 0
  [ -n "$(find "$ROOT/pom.xml" "$ROOT"/*/pom.xml "$ROOT"/*/src/main -newer "$CP_FILE" -type f 2>/dev/null | head -1)" ]
}
if stale; then
  echo "building bitopk (mvn compile)..." >&2
  # stdout carries only the job's output: Maven's lines (and the colour resets it writes even in batch mode) go
  # to stderr, colourless.
  (cd "$ROOT" && mvn -B -q -Dstyle.color=never -pl job -am compile dependency:build-classpath \
      -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=compile) >&2
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
