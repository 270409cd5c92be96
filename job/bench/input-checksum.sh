#!/usr/bin/env bash
# What the input check of a start or --resume costs (InputChecksumCost): the CRC32C of every byte of the
# Fashion-MNIST files and of a 1 GB Parquet table (written under OUT_DIR the first time), against reading the
# same bytes without a checksum, each 5 times (the first read may come from disk, the others from the page cache).
#   job/bench/input-checksum.sh [OUT_DIR=runs/input-checksum] [TABLE_GB=1]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
mvn -B -q -pl job -am test-compile dependency:build-classpath -Dmdep.outputFile=target/test-classpath.txt \
    -Dmdep.includeScope=test
OPENS="$(sed -n 's:.*<spark.jvm.opens>\(.*\)</spark.jvm.opens>.*:\1:p' pom.xml)"
export SPARK_LOCAL_IP=127.0.0.1
# shellcheck disable=SC2086
exec java -Xmx4g $OPENS -cp "job/target/test-classes:job/target/classes:$(cat job/target/test-classpath.txt)" \
    org.bitopk.job.run.InputChecksumCost "${1:-runs/input-checksum}" "${2:-1}"
