#!/usr/bin/env bash
# Submits the bitopk training job to a Spark standalone cluster (spark://HOST:PORT).
set -euo pipefail
BITOPK_COMMON="${BASH_SOURCE[0]%/*}/common.sh"
[[ "${BASH_SOURCE[0]}" == */* ]] || BITOPK_COMMON=common.sh
[[ -f "$BITOPK_COMMON" ]] || { echo "standalone.sh: error: $BITOPK_COMMON not found (keep the submit/ scripts together)" >&2; exit 2; }
source "$BITOPK_COMMON"
locate_repo "${BASH_SOURCE[0]}"

usage() {
  print_text <<HELP
Usage: $BITOPK_SCRIPT_NAME --master spark://HOST:PORT [options] [--] [job arguments...]

Submits $BITOPK_MAIN_CLASS to a Spark standalone cluster. Each executor is one or more workers of the job:
ask for as many task slots (executors x executor cores) as the job's --workers.

Options:
  --master URL         the standalone Master (default: \$SPARK_MASTER_URL)
  --executors N        number of executors (spark.cores.max = N x executor cores; default 2)
  --executor-cores C   cores (task slots) per executor (default 1)
  --executor-memory M  executor heap (default: spark-defaults.conf)
  --driver-memory M    driver heap (default: spark-defaults.conf)
  --deploy-mode MODE   client (driver here, the default) or cluster (driver on a worker; the jar and the
                       output directory must then be reachable from every machine, e.g. hdfs://)
  --warm-executors PATH
                       start each executor with the job's warm-up agent, PATH being the application jar's
                       absolute path on every worker host: its JVM loads and compiles the round's code while
                       Spark starts it, so that an executor that joins a run works sooner (job/docs/training.md)

$(common_options_help)

Security (on by default):
  --secret-file FILE   the cluster's shared secret, on the file's first line; the file must not be readable
                       by group or others (chmod 600). Without it: \$BITOPK_SPARK_SECRET
  --insecure           submit without authentication and encryption (the cluster's own settings apply)
The script sets spark.authenticate=true, spark.network.crypto.enabled=true, spark.io.encryption.enabled=true
and spark.authenticate.secret; the secret reaches spark-submit in a properties file only you can read (with the
settings of the installation's conf/spark-defaults.conf, which spark-submit then skips), never on a command
line, and the file is removed when spark-submit ends. The Master and every Worker need spark.authenticate=true,
spark.network.crypto.enabled=true and the same secret in their own conf/spark-defaults.conf, else they and the
application refuse each other. Without a secret and without --insecure the script refuses to submit; every
refusal is one line and exit status 2.

Example:
  $BITOPK_SCRIPT_NAME --master spark://head:7077 --executors 4 -- train --workers 4 --output hdfs:///runs/a
HELP
}

MASTER="${SPARK_MASTER_URL:-}"
EXECUTORS=2
EXECUTOR_CORES=1
EXECUTOR_MEMORY=""
DRIVER_MEMORY=""
DEPLOY_MODE=client
WARM_JAR=""
SECRET_FILE=""
parse_specific() {
  case "$1" in
    --master) require_value "$@"; MASTER="$2"; SHIFT_BY=2 ;;
    --executors) require_value "$@"; require_positive_int "$1" "$2"; EXECUTORS="$2"; SHIFT_BY=2 ;;
    --executor-cores) require_value "$@"; require_positive_int "$1" "$2"; EXECUTOR_CORES="$2"; SHIFT_BY=2 ;;
    --executor-memory) require_value "$@"; EXECUTOR_MEMORY="$2"; SHIFT_BY=2 ;;
    --driver-memory) require_value "$@"; DRIVER_MEMORY="$2"; SHIFT_BY=2 ;;
    --deploy-mode) require_value "$@"; DEPLOY_MODE="$2"; SHIFT_BY=2 ;;
    --secret-file) require_value "$@"; SECRET_FILE="$2"; SHIFT_BY=2 ;;
    --warm-executors) require_value "$@"; WARM_JAR="$2"; SHIFT_BY=2 ;;
    *) parse_security_option "$@" ;;
  esac
}

# A standalone cluster has no per-application secret: every daemon and submitter shares one.
standalone_secret() {
  [[ "$SECURITY" == on ]] || { [[ -z "$SECRET_FILE" ]] || die "--insecure and --secret-file contradict each other: pass one"; return 0; }
  if [[ -n "$SECRET_FILE" ]]; then
    read_secret_file "$SECRET_FILE"
  elif [[ -n "${BITOPK_SPARK_SECRET:-}" ]]; then
    SECRET="$BITOPK_SPARK_SECRET"
    require_strong_secret "\$BITOPK_SPARK_SECRET"
  else
    die "no shared secret for the standalone cluster: pass --secret-file FILE or set BITOPK_SPARK_SECRET (or --insecure to submit unauthenticated and unencrypted)"
  fi
  secret_properties_file
}

# Every user of this machine can read every process's command line (/proc/PID/cmdline), so the secret reaches
# spark-submit in a properties file that only its owner can read, inside a directory only its owner can enter.
# Spark's secret-file settings are no alternative: Spark 3.5 honours them on Kubernetes only. Given
# --properties-file, spark-submit skips the installation's conf/spark-defaults.conf: its settings are copied in
# first. spark-submit replaces this shell (same PID); a watcher removes the directory once that process ends.
secret_properties_file() {
  if [[ "$DRY_RUN" == 1 ]]; then
    SUBMIT_EXTRA+=(--properties-file "<private file: spark.authenticate.secret>")
    return 0
  fi
  local dir installed="${SPARK_CONF_DIR:-${SPARK_HOME:-${SPARK_SUBMIT%/bin/*}}/conf}/spark-defaults.conf"
  dir="$(umask 077 && mktemp -d "${TMPDIR:-/tmp}/bitopk-submit.XXXXXXXX" 2>/dev/null)" \
    || die "cannot create a private directory in ${TMPDIR:-/tmp} for the secret's properties file (set TMPDIR)"
  ( umask 077
    { [[ ! -f "$installed" || ! -r "$installed" ]] || printf '%s\n' "$(<"$installed")"
      printf 'spark.authenticate.secret %s\n' "${SECRET//\\/\\\\}"; } > "$dir/secret.properties"
  ) || die "cannot write the secret's properties file in $dir"
  ( trap 'rm -rf -- "$dir"; exit 0' TERM HUP
    while kill -0 "$$" 2>/dev/null; do sleep 1; done
    rm -rf -- "$dir" ) </dev/null >/dev/null 2>&1 &
  SUBMIT_EXTRA+=(--properties-file "$dir/secret.properties")
}

parse_common "$@"
find_spark_submit
[[ -n "$MASTER" ]] || die "no Master given: pass --master spark://HOST:PORT (or set SPARK_MASTER_URL)"
[[ "$MASTER" == spark://* ]] || die "--master must look like spark://HOST:PORT, got '$MASTER'"
[[ "$DEPLOY_MODE" == client || "$DEPLOY_MODE" == cluster ]] || die "--deploy-mode must be client or cluster, got '$DEPLOY_MODE'"
[[ -z "$WARM_JAR" || "$WARM_JAR" == /* ]] || die "--warm-executors expects the application jar's absolute path on every worker host (an executor starts in a directory of its own), got '$WARM_JAR'"
read_spark_version
find_app_jar "$JAR_OPTION"
standalone_secret
add_security_conf
SUBMIT_EXTRA+=(--master "$MASTER" --deploy-mode "$DEPLOY_MODE")
SUBMIT_CONF+=(--conf "spark.executor.cores=$EXECUTOR_CORES"
              --conf "spark.cores.max=$((EXECUTORS * EXECUTOR_CORES))")
[[ -z "$EXECUTOR_MEMORY" ]] || SUBMIT_CONF+=(--conf "spark.executor.memory=$EXECUTOR_MEMORY")
[[ -z "$DRIVER_MEMORY" ]] || SUBMIT_CONF+=(--conf "spark.driver.memory=$DRIVER_MEMORY")
[[ -z "$WARM_JAR" ]] || warm_executors_from "$WARM_JAR"
[[ "$DEPLOY_MODE" != client ]] || quiet_driver_console
run_submit
