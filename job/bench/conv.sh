#!/usr/bin/env bash
# JMH benchmark of one Fashion-MNIST CNN worker step, DL4J's convolution layer against DirectIm2colConvolution,
# and of the kernels it replaces, each alone (see ConvolutionStepBenchmark). Extra JMH options as arguments, e.g. -f 2.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
mvn -B -q -pl job -am test-compile dependency:build-classpath -Dmdep.outputFile=target/test-classpath.txt \
    -Dmdep.includeScope=test
export OMP_NUM_THREADS=1
exec java -cp "job/target/test-classes:job/target/classes:$(cat job/target/test-classpath.txt)" \
    org.bitopk.job.problem.network.ConvolutionStepBenchmark "$@"
