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
PROFILE=() MODULE=job TARGET=target BUILD_PHASE=compile
if [ "${1:-}" = --spark-3.5 ]; then
  # test-compile: job/dl4j-baselines' tests use the job's test jar, which the reactor resolves to the job's test
  # classes only once they are compiled, even for a compile-scope class path
  PROFILE=(-Pspark-3.5) MODULE=job/dl4j-baselines TARGET=target/spark-3.5 BUILD_PHASE=test-compile
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
  (cd "$ROOT" && mvn -B -q -Dstyle.color=never "${PROFILE[@]}" -pl "$MODULE" -am "$BUILD_PHASE" dependency:build-classpath \
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
# On a machine of 2 cores or fewer C2's compiler threads take the rounds' CPU from the first round to the last: there
# the job compiles with C1 alone, faster from round 0 and at its steady pace (job/docs/cold-start.md). JAVA_OPTS that
# name a tiered-compilation setting decide instead (-XX:TieredStopAtLevel=4 for C2). C1 alone reserves only 48 MB
# for compiled code, which a long run fills ("Out of space in CodeCache"): the tiered default of 240 MB.
JIT_OPTS=()
if [ "$(nproc 2>/dev/null || echo 4)" -le 2 ] && [[ "${JAVA_OPTS:-}" != *Tiered* ]]; then
  JIT_OPTS=(-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m)
fi
CLASS_PATH="$CLASSES:$(cat "$CP_FILE")"

# Application class-data sharing (JDK 17's dynamic AppCDS; job/docs/cold-start.md): the first training run after a
# build records the classes it loaded in an archive as it exits (-XX:ArchiveClassesAtExit), and later runs map them
# from it instead of reading, parsing and verifying them again. CDS takes classes from jars only, so the class
# directories of the path are packed into jars beside the archive; a new build replaces both. BITOPK_CDS=on runs with
# it (off by default: it saved nothing measurable yet, BENCHMARKS.md); BITOPK_CDS_DIR puts it elsewhere (default:
# the module's target/cds).
CDS_OPTS=()
training_run() {
  local arg
  case "${1:-}" in ''|train|--*) ;; *) return 1 ;; esac
  for arg in "$@"; do
    case "$arg" in -h|--help|--version) return 1 ;; esac
  done
}
if [ "${BITOPK_CDS:-off}" = on ] && command -v jar >/dev/null; then
  CDS_DIR="${BITOPK_CDS_DIR:-$ROOT/$MODULE/$TARGET/cds}"
  ARCHIVE="$CDS_DIR/classes.jsa"
  IFS=: read -r -a ENTRIES <<<"$CLASS_PATH"
  DIRS=()
  for entry in "${ENTRIES[@]}"; do
    [ ! -d "$entry" ] || DIRS+=("$entry")
  done
  mkdir -p "$CDS_DIR"
  if [ ! -f "$CDS_DIR/jars.stamp" ] || [ "$CP_FILE" -nt "$CDS_DIR/jars.stamp" ] \
      || { [ ${#DIRS[@]} -gt 0 ] && [ -n "$(find "${DIRS[@]}" -newer "$CDS_DIR/jars.stamp" | head -1)" ]; }; then
    rm -f "$CDS_DIR"/*.jar "$ARCHIVE" "$CDS_DIR/jars.stamp"
    touch "$CDS_DIR/jars.stamp.new"
    for i in "${!DIRS[@]}"; do
      jar --create --file "$CDS_DIR/classes-$i.jar" -C "${DIRS[$i]}" . >&2
    done
    mv "$CDS_DIR/jars.stamp.new" "$CDS_DIR/jars.stamp"
  fi
  for i in "${!ENTRIES[@]}"; do
    for j in "${!DIRS[@]}"; do
      [ "${ENTRIES[$i]}" != "${DIRS[$j]}" ] || ENTRIES[$i]="$CDS_DIR/classes-$j.jar"
    done
  done
  CLASS_PATH="$(IFS=:; echo "${ENTRIES[*]}")"
  # The JVM's CDS messages (an archive of another class path is ignored, a class it cannot archive is skipped) would
  # mix with the job's output: they go to a file beside the archive.
  CDS_OPTS=(-Xlog:cds*=off -Xlog:class+path=off
            "-Xlog:cds*=warning,class+path=warning:file=$CDS_DIR/cds.log::filecount=0")
  if [ -s "$ARCHIVE" ]; then
    CDS_OPTS+=("-XX:SharedArchiveFile=$ARCHIVE")
  elif training_run "$@"; then
    CDS_OPTS+=("-XX:ArchiveClassesAtExit=$ARCHIVE")
  fi
fi

# shellcheck disable=SC2086
exec java "${CDS_OPTS[@]}" "${JIT_OPTS[@]}" ${JAVA_OPTS:-} $SPARK_OPENS -cp "$CLASS_PATH" org.bitopk.cli.Main "$@"
