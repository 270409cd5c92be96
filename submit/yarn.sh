#!/usr/bin/env bash
# Submits the bitopk training job to Hadoop YARN (HADOOP_CONF_DIR or YARN_CONF_DIR must point to the cluster).
set -euo pipefail
BITOPK_COMMON="${BASH_SOURCE[0]%/*}/common.sh"
[[ "${BASH_SOURCE[0]}" == */* ]] || BITOPK_COMMON=common.sh
[[ -f "$BITOPK_COMMON" ]] || { echo "yarn.sh: error: $BITOPK_COMMON not found (keep the submit/ scripts together)" >&2; exit 2; }
source "$BITOPK_COMMON"
locate_repo "${BASH_SOURCE[0]}"

usage() {
  print_text <<HELP
Usage: $BITOPK_SCRIPT_NAME [options] [--] [job arguments...]

Submits $BITOPK_MAIN_CLASS to YARN. The cluster is found through \$HADOOP_CONF_DIR or \$YARN_CONF_DIR.
The output directory should be on HDFS (or another shared file system) in cluster deploy mode.

Options:
  --executors N        number of executors (default 2); executors x executor cores >= the job's --workers
  --executor-cores C   cores per executor (default 1)
  --executor-memory M  executor heap (default: spark-defaults.conf; the container adds
                       spark.executor.memoryOverhead for ND4J's off-heap memory)
  --driver-memory M    driver heap (default: spark-defaults.conf)
  --queue Q            YARN queue (default: the cluster's default queue)
  --deploy-mode MODE   cluster (driver in the ApplicationMaster, the default) or client
  --warm-executors     start each executor with the job's warm-up agent: its JVM loads and compiles the round's
                       code while Spark starts it, so that an executor that joins a run works sooner (cluster
                       deploy mode: the agent is the application jar, which YARN gives every container as
                       __app__.jar; see job/docs/training.md)

$(common_options_help)

A failed run is not started again by YARN (spark.yarn.maxAppAttempts=1): continue it with the job's --resume.

$(generated_secret_help YARN)

Example:
  $BITOPK_SCRIPT_NAME --executors 8 --queue ml -- train --workers 8 --output hdfs:///user/me/runs/topk
HELP
}

EXECUTORS=2
EXECUTOR_CORES=1
EXECUTOR_MEMORY=""
DRIVER_MEMORY=""
QUEUE=""
DEPLOY_MODE=cluster
WARM_EXECUTORS=0
parse_specific() {
  case "$1" in
    --executors) require_value "$@"; require_positive_int "$1" "$2"; EXECUTORS="$2"; SHIFT_BY=2 ;;
    --executor-cores) require_value "$@"; require_positive_int "$1" "$2"; EXECUTOR_CORES="$2"; SHIFT_BY=2 ;;
    --executor-memory) require_value "$@"; EXECUTOR_MEMORY="$2"; SHIFT_BY=2 ;;
    --driver-memory) require_value "$@"; DRIVER_MEMORY="$2"; SHIFT_BY=2 ;;
    --queue) require_value "$@"; QUEUE="$2"; SHIFT_BY=2 ;;
    --deploy-mode) require_value "$@"; DEPLOY_MODE="$2"; SHIFT_BY=2 ;;
    --warm-executors) WARM_EXECUTORS=1; SHIFT_BY=1 ;;
    *) parse_security_option "$@" ;;
  esac
}

parse_common "$@"
find_spark_submit
[[ "$DEPLOY_MODE" == client || "$DEPLOY_MODE" == cluster ]] || die "--deploy-mode must be client or cluster, got '$DEPLOY_MODE'"
[[ "$WARM_EXECUTORS" == 0 || "$DEPLOY_MODE" == cluster ]] || die "--warm-executors needs --deploy-mode cluster: the executors' agent is the application jar, which YARN gives every container as __app__.jar only in cluster mode"
[[ -n "${HADOOP_CONF_DIR:-}${YARN_CONF_DIR:-}" ]] || die "neither HADOOP_CONF_DIR nor YARN_CONF_DIR is set: spark-submit cannot find the YARN ResourceManager"
read_spark_version
find_app_jar "$JAR_OPTION"
add_security_conf
SUBMIT_EXTRA+=(--master yarn --deploy-mode "$DEPLOY_MODE")
SUBMIT_CONF+=(--conf "spark.executor.instances=$EXECUTORS"
              --conf "spark.executor.cores=$EXECUTOR_CORES"
              --conf "spark.dynamicAllocation.enabled=false"
              --conf "spark.yarn.maxAppAttempts=1"
              --conf "spark.yarn.appMasterEnv.OMP_NUM_THREADS=1")
[[ -z "$EXECUTOR_MEMORY" ]] || SUBMIT_CONF+=(--conf "spark.executor.memory=$EXECUTOR_MEMORY")
[[ -z "$DRIVER_MEMORY" ]] || SUBMIT_CONF+=(--conf "spark.driver.memory=$DRIVER_MEMORY")
[[ -z "$QUEUE" ]] || SUBMIT_CONF+=(--conf "spark.yarn.queue=$QUEUE")
# YARN gives every container the application jar as __app__.jar, in its working directory
[[ "$WARM_EXECUTORS" == 0 ]] || warm_executors_from __app__.jar "$APP_JAR"
[[ "$DEPLOY_MODE" != client ]] || quiet_driver_console
run_submit
