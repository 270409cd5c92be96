#!/usr/bin/env bash
# Submits the bitopk training job to Kubernetes (driver and executors are pods running a Spark image).
set -euo pipefail
BITOPK_COMMON="${BASH_SOURCE[0]%/*}/common.sh"
[[ "${BASH_SOURCE[0]}" == */* ]] || BITOPK_COMMON=common.sh
[[ -f "$BITOPK_COMMON" ]] || { echo "k8s.sh: error: $BITOPK_COMMON not found (keep the submit/ scripts together)" >&2; exit 2; }
source "$BITOPK_COMMON"
locate_repo "${BASH_SOURCE[0]}"

usage() {
  print_text <<HELP
Usage: $BITOPK_SCRIPT_NAME --master k8s://https://HOST:PORT --image IMAGE [options] [--] [job arguments...]

Submits $BITOPK_MAIN_CLASS to Kubernetes in cluster deploy mode. The image must hold the Spark of this
spark-submit (Spark 4 with Scala 2.13, or 3.5 with Scala 2.12; Java 17) and that line's application jar;
submit/Dockerfile builds one from apache/spark. The output directory must be a shared file system (hdfs://,
s3a://...): pods have no common local disk.

Options:
  --master URL         k8s://https://HOST:PORT of the API server (default: \$SPARK_MASTER_URL)
  --image IMAGE        container image for driver and executors (required)
  --namespace NS       namespace (default: default)
  --service-account SA service account of the driver pod, allowed to create executor pods (default: spark)
  --executors N        number of executor pods (default 2); executors x executor cores >= the job's --workers
  --executor-cores C   cores per executor (default 1)
  --executor-memory M  executor heap (default: spark-defaults.conf; the pod adds memoryOverhead)
  --jar URI            default here: local:///opt/bitopk/bitopk_<Scala>.jar (the path inside the image)
  --warm-executors     start each executor with the job's warm-up agent, the application jar in the image
                       (a local:// jar): its JVM loads and compiles the round's code while Spark starts it, so
                       that an executor that joins a run works sooner (job/docs/training.md)

$(common_options_help)

$(generated_secret_help Kubernetes)

Example:
  $BITOPK_SCRIPT_NAME --master k8s://https://kube:6443 --image registry/bitopk:0.1.0 --executors 4 \\
    -- train --workers 4 --output s3a://bucket/runs/topk
HELP
}

MASTER="${SPARK_MASTER_URL:-}"
IMAGE=""
NAMESPACE=default
SERVICE_ACCOUNT=spark
EXECUTORS=2
EXECUTOR_CORES=1
EXECUTOR_MEMORY=""
WARM_EXECUTORS=0
parse_specific() {
  case "$1" in
    --master) require_value "$@"; MASTER="$2"; SHIFT_BY=2 ;;
    --image) require_value "$@"; IMAGE="$2"; SHIFT_BY=2 ;;
    --namespace) require_value "$@"; NAMESPACE="$2"; SHIFT_BY=2 ;;
    --service-account) require_value "$@"; SERVICE_ACCOUNT="$2"; SHIFT_BY=2 ;;
    --executors) require_value "$@"; require_positive_int "$1" "$2"; EXECUTORS="$2"; SHIFT_BY=2 ;;
    --executor-cores) require_value "$@"; require_positive_int "$1" "$2"; EXECUTOR_CORES="$2"; SHIFT_BY=2 ;;
    --executor-memory) require_value "$@"; EXECUTOR_MEMORY="$2"; SHIFT_BY=2 ;;
    --warm-executors) WARM_EXECUTORS=1; SHIFT_BY=1 ;;
    *) parse_security_option "$@" ;;
  esac
}

parse_common "$@"
find_spark_submit
[[ -n "$MASTER" ]] || die "no API server given: pass --master k8s://https://HOST:PORT (or set SPARK_MASTER_URL)"
[[ "$MASTER" == k8s://* ]] || die "--master must look like k8s://https://HOST:PORT, got '$MASTER'"
[[ -n "$IMAGE" ]] || die "no container image given: pass --image IMAGE (see submit/Dockerfile)"
read_spark_version
find_app_jar "${JAR_OPTION:-local:///opt/bitopk/bitopk_${CLUSTER_SCALA}.jar}"
add_security_conf
SUBMIT_EXTRA+=(--master "$MASTER" --deploy-mode cluster)
SUBMIT_CONF+=(--conf "spark.kubernetes.container.image=$IMAGE"
              --conf "spark.kubernetes.namespace=$NAMESPACE"
              --conf "spark.kubernetes.authenticate.driver.serviceAccountName=$SERVICE_ACCOUNT"
              --conf "spark.executor.instances=$EXECUTORS"
              --conf "spark.executor.cores=$EXECUTOR_CORES"
              --conf "spark.kubernetes.driverEnv.OMP_NUM_THREADS=1")
[[ -z "$EXECUTOR_MEMORY" ]] || SUBMIT_CONF+=(--conf "spark.executor.memory=$EXECUTOR_MEMORY")
if [[ "$WARM_EXECUTORS" == 1 ]]; then
  [[ "$APP_JAR" == local:///* ]] || die "--warm-executors needs the application jar inside the image (--jar local:///PATH), got '$APP_JAR': the agent starts with the executor's JVM, before Spark fetches anything"
  warm_executors_from "${APP_JAR#local://}"
fi
run_submit
