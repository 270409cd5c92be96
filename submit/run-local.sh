#!/usr/bin/env bash
# Runs the training job (or any bitopk command) in local mode on this machine:
#   submit/local.sh [train flags...]        e.g. submit/local.sh --epochs 2 --mode unidirectional
# Builds the job and its classpath first when sources changed (Spark is a "provided" dependency of the
# application jar, so the classpath here includes it explicitly).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
JAR="$ROOT/job/target/bitopk-job-0.1.0-SNAPSHOT.jar"
CP_FILE="$ROOT/job/target/classpath.txt"

stale() {
  [ ! -f "$JAR" ] || [ ! -f "$CP_FILE" ] && return 0
  [ -n "$(find "$ROOT/pom.xml" "$ROOT"/*/pom.xml "$ROOT"/*/src/main -newer "$JAR" -type f 2>/dev/null | head -1)" ]
}
if stale; then
  echo "building bitopk (mvn package)..." >&2
  (cd "$ROOT" && mvn -B -q -pl job -am -DskipTests package dependency:build-classpath \
      -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=compile)
fi

# Spark's --add-opens list for JDK 17 (spark-launcher JavaModuleOptions); java -cp does not read it from a jar.
SPARK_OPENS="-XX:+IgnoreUnrecognizedVMOptions"
for p in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util java.util.concurrent \
         java.util.concurrent.atomic jdk.internal.ref sun.nio.ch sun.nio.cs sun.security.action sun.util.calendar; do
  SPARK_OPENS="$SPARK_OPENS --add-opens=java.base/$p=ALL-UNNAMED"
done
SPARK_OPENS="$SPARK_OPENS --add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false"

# Spark runs one task per core; ND4J's own OpenMP threads would oversubscribe them.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
# shellcheck disable=SC2086
exec java ${JAVA_OPTS:-} $SPARK_OPENS -cp "$JAR:$(cat "$CP_FILE")" org.bitopk.job.Main "$@"
