#!/usr/bin/env bash
# Runs the bitopk training job on this machine: the driver and the P workers share one JVM (local[N]).
set -euo pipefail
BITOPK_COMMON="${BASH_SOURCE[0]%/*}/common.sh"
[[ "${BASH_SOURCE[0]}" == */* ]] || BITOPK_COMMON=common.sh
[[ -f "$BITOPK_COMMON" ]] || { echo "local.sh: error: $BITOPK_COMMON not found (keep the submit/ scripts together)" >&2; exit 2; }
source "$BITOPK_COMMON"
locate_repo "${BASH_SOURCE[0]}"

usage() {
  print_text <<HELP
Usage: $BITOPK_SCRIPT_NAME [options] [--] [job arguments...]

Runs $BITOPK_MAIN_CLASS with spark-submit --master local[N] on this machine.

Options:
  --cores N            local[N]: task slots, one per worker; at least the job's --workers (default 2)
  --driver-memory M    heap of the single JVM (default: spark-defaults.conf, 4g). ND4J's off-heap caps there
                       (-Dorg.bytedeco.javacpp.maxphysicalbytes) must stay above heap + off-heap buffers

$(common_options_help)

Example:
  $BITOPK_SCRIPT_NAME --cores 2 -- train --dataset fashion-mnist --workers 2 --output runs/local
HELP
}

CORES=2
DRIVER_MEMORY=""
parse_specific() {
  case "$1" in
    --cores) require_value "$@"; require_positive_int "$1" "$2"; CORES="$2"; SHIFT_BY=2 ;;
    --driver-memory) require_value "$@"; DRIVER_MEMORY="$2"; SHIFT_BY=2 ;;
    *) return 1 ;;
  esac
}

parse_common "$@"
find_spark_submit
read_spark_version
find_app_jar "$JAR_OPTION"
# In local mode the tasks run inside the driver JVM: spark.executorEnv does not reach them.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
SUBMIT_EXTRA+=(--master "local[$CORES]")
[[ -z "$DRIVER_MEMORY" ]] || SUBMIT_CONF+=(--conf "spark.driver.memory=$DRIVER_MEMORY")
quiet_driver_console
run_submit
