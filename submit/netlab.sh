#!/usr/bin/env bash
# An emulated cluster on this machine: a real Spark standalone cluster whose hosts are Linux network
# namespaces joined by a bridge, each host's link shaped with tc, running one bitopk command with the driver
# on a host of its own; interface counters before/after go into one JSON summary. Needs root.
#   submit/netlab.sh --hosts 4 --rate 100mbit --delay 1ms -- train --mode bidirectional --workers 4
# Everything it creates is named bk<PID>-... and removed on exit, failure, Ctrl-C and SIGTERM;
# `submit/netlab.sh --cleanup` removes what a killed invocation left. See submit/README.md.
set -euo pipefail
BITOPK_COMMON="${BASH_SOURCE[0]%/*}/common.sh"
[[ "${BASH_SOURCE[0]}" == */* ]] || BITOPK_COMMON=common.sh
[[ -f "$BITOPK_COMMON" ]] || { echo "netlab.sh: error: $BITOPK_COMMON not found (keep the submit/ scripts together)" >&2; exit 2; }
source "$BITOPK_COMMON"
locate_repo "${BASH_SOURCE[0]}"
source "$BITOPK_SUBMIT_DIR/netlab-security.sh"

usage() {
  print_text <<HELP
Usage: $BITOPK_SCRIPT_NAME [options] [--] COMMAND [job arguments...]
       $BITOPK_SCRIPT_NAME --cleanup

Runs one bitopk command (train, time-to-accuracy, experiment, ...) on a Spark standalone cluster made of
network namespaces on this machine: host 0 runs the driver and the Spark Master, hosts 1..N one Worker with
one executor each. Every host has one link to a bridge, shaped with tc. Needs root (CAP_NET_ADMIN and
CAP_SYS_ADMIN). Writes netlab.json (measured bytes per host against the job's own accounting, read from the
job's --output / --out) into the lab directory.

Options:
  --hosts N            worker hosts (default 2); the driver's host comes on top
  --cores C            cores (task slots) of each worker host's executor (default 1)
  --memory M           heap of each executor, e.g. 1g (default 1g)
  --driver-memory M    heap of the driver (default 1g)
  --rate R[,R...]      link rate of each host in both directions: NUMBER followed by kbit, mbit or gbit, or
                       none (unshaped; the default). One value for every host, or N+1 values, the driver's
                       host first
  --delay D[,D...]     delay added to every packet a host sends, e.g. 1ms (default 0ms); same list rule
  --loss P[,P...]      share of the packets a host sends that are dropped, in percent, e.g. 0.1 (default 0)
  --fault SPEC         change a link during the run (repeatable), SPEC = HOST:WHEN:WHAT
                         HOST  host index (0 = driver's host)
                         WHEN  +SECONDS after the job started, or rRound (once the job's metrics show that
                               round completed; train only)
                         WHAT  down=SECONDS (link down, then up again), delay=D, loss=P, rate=R,
                               decommission (SIGPWR to the host's Worker: Spark decommissions its executors
                               gracefully), start (the host's Worker starts only then, not with the others)
                       e.g. --fault 1:r9:down=30 --fault 2:+60:loss=5 --fault 3:r50:decommission
  --probe MB           before the job, time an MB-megabyte TCP transfer from host 1 to host 0 and record
                       the measured rate in netlab.json (default 0: no probe)
$(lab_security_help)
  --conf KEY=VALUE     one more Spark setting for the job (repeatable), after the lab's own, so it wins; e.g.
                       spark.locality.wait.process=10min keeps a round's tasks on their executors through a
                       short partition (see submit/README.md)
  --log-info LOGGER    one more logger at INFO in every JVM's log (repeatable; the lab's own are at WARN but
                       bitopk's), e.g. org.apache.spark.scheduler.TaskSetManager (each task's launch and end:
                       where, how long), org.apache.spark.broadcast.TorrentBroadcast (each broadcast's fetch)
  --cold-executors     start the executors without the job's warm-up agent (by default each executor's JVM
                       loads and compiles the round's code while Spark starts it, before it registers; see
                       job/docs/training.md)
  --time-limit S       every process the lab starts is stopped after S seconds (default 3600)
  --lab-dir DIR        logs, Spark home, counters (default: runs/netlab-<UTC time>-<PID>)
  --spark-3.5          run the Spark 3.5 build (Scala 2.12, with DL4J's Spark masters) instead of Spark 4's
  --cleanup            remove what killed invocations left (namespaces bk<PID>-*, their processes, the
                       counter samplers) for PIDs that no longer run this script, say what, and exit
  -h, --help           this help

Example:
  $BITOPK_SCRIPT_NAME --hosts 2 --rate 100mbit --delay 1ms -- train --workers 2 --epochs 1 --output runs/lab
HELP
}

HOSTS=2
CORES=1
MEMORY=1g
DRIVER_MEMORY=1g
RATES=none
DELAYS=0ms
LOSSES=0
FAULTS=()
LATE_WORKERS=()
PROBE_MB=0
TIME_LIMIT=3600
LAB_DIR=""
LINE_PROFILE=() LINE_MODULE=job LINE_TARGET=target LINE_BUILD_PHASE=compile
CLEANUP_ONLY=0
WARM_EXECUTORS=1
JOB_ARGS=()
USER_CONF=()
LOG_INFO=()
DAEMON_HEAP=256m
ADDRESS_BASE=198.18.0.       # RFC 2544's benchmarking range; only ever inside namespaces created here
MASTER_PORT=7077
MASTER_UI_PORT=8080

while [[ $# -gt 0 ]]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --hosts) require_value "$@"; require_positive_int "$1" "$2"; HOSTS="$2"; shift 2 ;;
    --cores) require_value "$@"; require_positive_int "$1" "$2"; CORES="$2"; shift 2 ;;
    --memory) require_value "$@"; MEMORY="$2"; shift 2 ;;
    --driver-memory) require_value "$@"; DRIVER_MEMORY="$2"; shift 2 ;;
    --rate) require_value "$@"; RATES="$2"; shift 2 ;;
    --delay) require_value "$@"; DELAYS="$2"; shift 2 ;;
    --loss) require_value "$@"; LOSSES="$2"; shift 2 ;;
    --fault) require_value "$@"; FAULTS+=("$2"); shift 2 ;;
    --conf) require_value "$@"; require_setting "$@"; USER_CONF+=("-D$2"); shift 2 ;;
    --probe) require_value "$@"; [[ "$2" =~ ^[0-9]+$ ]] || die "option --probe must be a whole number of megabytes, got '$2'"
             PROBE_MB="$2"; shift 2 ;;
    --log-info) require_value "$@"
      [[ "$2" =~ ^[A-Za-z_][A-Za-z0-9_.\$]*$ ]] || die "option --log-info expects a logger name such as org.apache.spark.scheduler.TaskSetManager, got '$2'"
      LOG_INFO+=("$2"); shift 2 ;;
    --time-limit) require_value "$@"; require_positive_int "$1" "$2"; TIME_LIMIT="$2"; shift 2 ;;
    --lab-dir) require_value "$@"; LAB_DIR="$2"; shift 2 ;;
    --cleanup) CLEANUP_ONLY=1; shift ;;
    --cold-executors) WARM_EXECUTORS=0; shift ;;
    # test-compile: as run-local.sh builds the Spark 3.5 line (job/dl4j-baselines' tests use the job's test jar)
    --spark-3.5) LINE_PROFILE=(-Pspark-3.5) LINE_MODULE=job/dl4j-baselines LINE_TARGET=target/spark-3.5
      LINE_BUILD_PHASE=test-compile; shift ;;
    --secure|--rogue) parse_lab_security_option "$1"; shift ;;
    --) shift; JOB_ARGS+=("$@"); break ;;
    -*) die "unknown option $1 (see --help; the job's own options go after --)" ;;
    *) JOB_ARGS+=("$@"); break ;;
  esac
done

# --- privileges: CAP_NET_ADMIN (12) and CAP_SYS_ADMIN (21) in the effective set ---------------------------
have_privileges() {
  local line caps
  while IFS= read -r line; do
    [[ "$line" == CapEff:* ]] && caps="${line##*[[:space:]]}"
  done < /proc/self/status
  [[ -n "${caps:-}" ]] && (( (16#$caps >> 12 & 1) && (16#$caps >> 21 & 1) ))
}
have_privileges || die "needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) to create network namespaces; run it with sudo" 2
for tool in ip tc timeout java; do
  command -v "$tool" >/dev/null || die "$tool not found on PATH (ip and tc: package iproute2; timeout: coreutils; java: JDK 17)" 2
done

NAME_PATTERN='^bk([0-9]+)-'

# True when PID runs this script (a live invocation whose names must be left alone).
is_live_lab() {
  local cmdline
  [[ -r "/proc/$1/cmdline" ]] || return 1
  cmdline="$( { tr '\0' ' ' < "/proc/$1/cmdline"; } 2>/dev/null)" || return 1
  [[ "$cmdline" == *netlab.sh* ]]
}

# Stops every process inside namespace $1 (all of them were started there by the lab), TERM then KILL.
kill_namespace_processes() {
  local ns="$1" pids pid waited
  pids="$(ip netns pids "$ns" 2>/dev/null || true)"
  [[ -z "$pids" ]] && return 0
  for pid in $pids; do kill -TERM "$pid" 2>/dev/null || true; done
  for waited in 1 2 3 4 5 6 7 8 9 10; do
    pids="$(ip netns pids "$ns" 2>/dev/null || true)"
    [[ -z "$pids" ]] && return 0
    sleep 1
  done
  for pid in $pids; do kill -KILL "$pid" 2>/dev/null || true; done
}

# Counter samplers run in the host's own namespace; they carry their invocation's name in their command line.
sampler_pids_of() {
  local prefix="$1" proc cmdline
  for proc in /proc/[0-9]*; do
    cmdline="$( { tr '\0' ' ' < "$proc/cmdline"; } 2>/dev/null)" || continue
    [[ " $cmdline " == *" ${prefix}-sampler "* ]] && printf '%s\n' "${proc#/proc/}"
  done
  return 0
}

cleanup_leftovers() {
  local ns owner removed=0 pid
  declare -A dead=()
  while read -r ns _; do
    [[ "$ns" =~ $NAME_PATTERN ]] || continue
    owner="${BASH_REMATCH[1]}"
    if is_live_lab "$owner"; then
      echo "netlab.sh: keeping $ns: invocation $owner is still running"
      continue
    fi
    dead["bk$owner"]=1
    kill_namespace_processes "$ns"
    ip netns del "$ns" && { echo "netlab.sh: removed namespace $ns (left by invocation $owner)"; removed=$((removed + 1)); }
  done < <(ip netns list)
  for prefix in "${!dead[@]}"; do
    for pid in $(sampler_pids_of "$prefix"); do
      kill -TERM "$pid" 2>/dev/null && echo "netlab.sh: stopped counter sampler $pid of ${prefix#bk}"
    done
  done
  echo "netlab.sh: cleanup done, $removed namespace(s) of the pattern bk<PID>-* removed"
}

if [[ "$CLEANUP_ONLY" == 1 ]]; then
  cleanup_leftovers
  exit 0
fi

[[ ${#JOB_ARGS[@]} -gt 0 ]] || die "no bitopk command given: pass e.g. -- train --workers 2 (see --help)"
(( HOSTS <= 64 )) || die "option --hosts must be at most 64, got $HOSTS"
[[ "$MEMORY" =~ ^[1-9][0-9]*[mg]$ ]] || die "option --memory must look like 512m or 1g, got '$MEMORY'"
[[ "$DRIVER_MEMORY" =~ ^[1-9][0-9]*[mg]$ ]] || die "option --driver-memory must look like 512m or 1g, got '$DRIVER_MEMORY'"

# --- per-host link settings ---------------------------------------------------------------------------------
RATE_RE='^(none|[1-9][0-9]*(kbit|mbit|gbit))$'
DELAY_RE='^[0-9]+(\.[0-9]+)?(us|ms|s)$'
LOSS_RE='^[0-9]+(\.[0-9]+)?$'
# per_host OPTION LIST REGEX: sets PER_HOST to HOSTS+1 values from one value or a full list.
per_host() {
  local option="$1" list="$2" regex="$3" value
  local -a values
  IFS=, read -r -a values <<< "$list"
  if [[ ${#values[@]} -eq 1 ]]; then
    values=()
    for ((i = 0; i <= HOSTS; i++)); do values+=("$list"); done
  fi
  [[ ${#values[@]} -eq $((HOSTS + 1)) ]] || die "option $option takes one value or $((HOSTS + 1)) (the driver's host first), got ${#values[@]}: '$list'"
  for value in "${values[@]}"; do
    [[ "$value" =~ $regex ]] || die "option $option: '$value' is not valid (e.g. $4)"
  done
  PER_HOST=("${values[@]}")
}
per_host --rate "$RATES" "$RATE_RE" "100mbit, 1gbit or none"; HOST_RATE=("${PER_HOST[@]}")
per_host --delay "$DELAYS" "$DELAY_RE" "0ms, 1ms, 500us"; HOST_DELAY=("${PER_HOST[@]}")
per_host --loss "$LOSSES" "$LOSS_RE" "0 or 0.5 (percent)"; HOST_LOSS=("${PER_HOST[@]}")

# --- faults: validated before anything is created -----------------------------------------------------------
for fault in "${FAULTS[@]}"; do
  [[ "$fault" =~ ^([0-9]+):(\+[0-9]+|r[0-9]+):(down=[1-9][0-9]*|delay=.+|loss=.+|rate=.+|decommission|start)$ ]] \
    || die "option --fault expects HOST:+SECONDS|rROUND:down=S|delay=D|loss=P|rate=R|decommission|start, got '$fault'"
  if [[ "${BASH_REMATCH[3]}" == decommission || "${BASH_REMATCH[3]}" == start ]]; then
    (( BASH_REMATCH[1] >= 1 )) || die "option --fault '$fault': host 0 runs no Worker"
  fi
  if [[ "${BASH_REMATCH[3]}" == start ]]; then
    [[ "${BASH_REMATCH[2]}" == +* ]] || die "option --fault '$fault': a Worker starts +SECONDS after the job"
    LATE_WORKERS+=("${BASH_REMATCH[1]}")
  fi
  (( BASH_REMATCH[1] <= HOSTS )) || die "option --fault '$fault': host ${BASH_REMATCH[1]} does not exist (0..$HOSTS)"
  case "${BASH_REMATCH[3]}" in
    delay=*) [[ "${BASH_REMATCH[3]#delay=}" =~ $DELAY_RE ]] || die "option --fault '$fault': delay must look like 1ms" ;;
    loss=*) [[ "${BASH_REMATCH[3]#loss=}" =~ $LOSS_RE ]] || die "option --fault '$fault': loss must be a percentage like 0.5" ;;
    rate=*) [[ "${BASH_REMATCH[3]#rate=}" =~ $RATE_RE ]] || die "option --fault '$fault': rate must look like 100mbit or none" ;;
  esac
done

# --- the build's classpath (as run-local.sh builds it) -------------------------------------------------------
ROOT="$(cd "$BITOPK_REPO" && pwd)"
CP_FILE="$ROOT/$LINE_MODULE/$LINE_TARGET/classpath.txt"
if [[ -n "${BITOPK_CLASSPATH:-}" ]]; then
  CP="$BITOPK_CLASSPATH"     # given whole (e.g. by a test's JVM): no build
elif [[ ! -f "$CP_FILE" || -n "$(find "$ROOT/pom.xml" "$ROOT"/*/pom.xml "$ROOT"/*/src/main "$ROOT"/job/src/line \
    "$ROOT"/job/*/pom.xml "$ROOT"/job/*/src/main -newer "$CP_FILE" -type f 2>/dev/null | head -1)" ]]; then
  echo "netlab.sh: building bitopk (mvn compile)..." >&2
  (cd "$ROOT" && mvn -B -q "${LINE_PROFILE[@]}" -pl "$LINE_MODULE" -am "$LINE_BUILD_PHASE" dependency:build-classpath \
      -Dmdep.outputFile="$LINE_TARGET/classpath.txt" -Dmdep.includeScope=compile) >&2 || die "the build failed" 1
  touch "$CP_FILE"   # the plugin leaves an unchanged file alone
fi
if [[ -z "${BITOPK_CLASSPATH:-}" ]]; then
  CP="$ROOT/job/$LINE_TARGET/classes:$(< "$CP_FILE")"
  [[ "$LINE_MODULE" == job ]] || CP="$ROOT/$LINE_MODULE/$LINE_TARGET/classes:$CP"
fi
# Spark's launcher needs the Scala version when it finds no build directory: the class path's own (2.13 or 2.12).
[[ "$CP" =~ scala-library-([0-9]+[.][0-9]+)[.] ]] || die "no scala-library jar on the class path; expected Spark's" 1
SCALA_BINARY_VERSION="${BASH_REMATCH[1]}"
SPARK_OPENS="$(sed -n 's:.*<spark.jvm.opens>\(.*\)</spark.jvm.opens>.*:\1:p' "$ROOT/pom.xml")"
[[ -n "$SPARK_OPENS" ]] || die "$ROOT/pom.xml defines no spark.jvm.opens property; expected Spark's JVM options there" 1
read -r -a OPENS <<< "$SPARK_OPENS"
# BITOPK_LAB_JAVA_OPTIONS: more options for the lab's Spark JVMs (Master, Workers, driver, executors, rogue host),
# e.g. the tests' cheaper start (-XX:TieredStopAtLevel=1 -XX:+UseSerialGC); unset for anything that is timed.
if [[ -n "${BITOPK_LAB_JAVA_OPTIONS:-}" ]]; then
  read -r -a LAB_JAVA_OPTIONS <<< "$BITOPK_LAB_JAVA_OPTIONS"
  OPENS+=("${LAB_JAVA_OPTIONS[@]}")
  SPARK_OPENS+=" $BITOPK_LAB_JAVA_OPTIONS"
fi
JAVA="$(command -v java)"

# --- names of this invocation ---------------------------------------------------------------------------------
PREFIX="bk$$"
BRIDGE_NS="${PREFIX}-br"
BRIDGE="${PREFIX}-br"
host_ns() { printf '%s-h%d' "$PREFIX" "$1"; }
host_link() { printf '%s-v%d' "$PREFIX" "$1"; }     # the host's end, inside the host's namespace
port_link() { printf '%s-p%d' "$PREFIX" "$1"; }     # the bridge's end, inside the bridge's namespace
host_address() { printf '%s%d' "$ADDRESS_BASE" "$(($1 + 1))"; }
if ip netns list | grep -q "^${PREFIX}-"; then
  die "namespaces named ${PREFIX}-* already exist (left by a killed invocation with this PID); run $BITOPK_SCRIPT_NAME --cleanup" 2
fi

is_zero() { [[ "$1" =~ ^0+(\.0+)?(us|ms|s)?$ ]]; }

# Delay and loss need the kernel's netem qdisc (sch_netem), which some kernels are built without.
have_netem() {
  local probe="${PREFIX}-netem" ok=1
  ip netns add "$probe" || return 1
  ip link add "${PREFIX}-n0" netns "$probe" type veth peer name "${PREFIX}-n1" netns "$probe" 2>/dev/null \
    && tc -n "$probe" qdisc add dev "${PREFIX}-n0" root netem delay 1ms 2>/dev/null && ok=0
  ip netns del "$probe"
  return "$ok"
}

needs_netem=0
for value in "${HOST_DELAY[@]}" "${HOST_LOSS[@]}"; do is_zero "$value" || needs_netem=1; done
for fault in "${FAULTS[@]}"; do [[ "$fault" == *:delay=* || "$fault" == *:loss=* ]] && needs_netem=1; done
if ((needs_netem)) && ! have_netem; then
  die "this kernel has no netem qdisc (sch_netem), which --delay, --loss and delay/loss faults need; rates and link-down faults work without it" 2
fi

[[ -n "$LAB_DIR" ]] || LAB_DIR="runs/netlab-$(date -u +%Y%m%dT%H%M%SZ)-$$"
mkdir -p "$LAB_DIR" || die "--lab-dir $LAB_DIR: cannot create the directory"
LAB_DIR="$(cd "$LAB_DIR" && pwd)"
[[ -z "$(ls -A "$LAB_DIR")" ]] || die "--lab-dir $LAB_DIR is not empty; give a new directory"
SPARK_HOME_DIR="$LAB_DIR/spark-home"
mkdir -p "$SPARK_HOME_DIR/jars" "$LAB_DIR/logs" "$LAB_DIR/counters"
LOG_CONFIG="$LAB_DIR/log4j2.properties"
print_text > "$LOG_CONFIG" <<'LOG'
rootLogger.level = warn
rootLogger.appenderRef.stdout.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss.SSS} %p %c{1}: %m%n%ex
logger.bitopk.name = org.bitopk
logger.bitopk.level = info
LOG
for i in "${!LOG_INFO[@]}"; do
  printf 'logger.info%d.name = %s\nlogger.info%d.level = info\n' "$i" "${LOG_INFO[$i]}" "$i" >> "$LOG_CONFIG"
done
# The executors' warm-up agent: a jar that only names the job's agent class, found on the executors' class path.
EXECUTOR_AGENT=""
if [[ "$WARM_EXECUTORS" == 1 ]]; then
  command -v jar >/dev/null || die "the JDK's jar tool is missing; it makes the executors' warm-up agent (or give --cold-executors)" 1
  printf 'Premain-Class: %s\n' "$BITOPK_AGENT_CLASS" > "$LAB_DIR/warm-up-agent.mf"
  jar --create --file "$LAB_DIR/warm-up-agent.jar" --manifest "$LAB_DIR/warm-up-agent.mf" \
    || die "could not make $LAB_DIR/warm-up-agent.jar" 1
  EXECUTOR_AGENT=" -javaagent:$LAB_DIR/warm-up-agent.jar"
fi

# --- teardown: by PID, then by this invocation's names only --------------------------------------------------
STARTED_PIDS=()
SAMPLER_PID=""
CREATED_NS=()
TORN_DOWN=0
teardown() {
  [[ "$TORN_DOWN" == 1 ]] && return 0
  TORN_DOWN=1
  trap '' INT TERM
  local pid ns
  for pid in "${STARTED_PIDS[@]}" $SAMPLER_PID; do kill -TERM "$pid" 2>/dev/null || true; done
  for ns in "${CREATED_NS[@]}"; do kill_namespace_processes "$ns"; done
  for pid in "${STARTED_PIDS[@]}" $SAMPLER_PID; do kill -KILL "$pid" 2>/dev/null || true; done
  for ns in "${CREATED_NS[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  if ip netns list | grep -q "^${PREFIX}-"; then
    echo "netlab.sh: could not remove every namespace ${PREFIX}-*; run $BITOPK_SCRIPT_NAME --cleanup" >&2
  fi
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- the network ------------------------------------------------------------------------------------------
rate_bits() {
  local r="$1"
  case "$r" in
    *kbit) echo $(( ${r%kbit} * 1000 )) ;;
    *mbit) echo $(( ${r%mbit} * 1000000 )) ;;
    *gbit) echo $(( ${r%gbit} * 1000000000 )) ;;
  esac
}
# shape NS DEV RATE DELAY LOSS: a token bucket for the rate (a burst of 4 ms at the rate, at least 64 KB,
# keeps it from capping below the rate); with a delay or loss, netem at the root and the bucket beneath it.
shape() {
  local ns="$1" dev="$2" rate="$3" delay="$4" loss="$5" burst parent=root
  tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null || true
  if ! is_zero "$delay" || ! is_zero "$loss"; then
    tc -n "$ns" qdisc add dev "$dev" root handle 1: netem delay "$delay" loss "${loss}%" limit 100000
    parent="parent 1:"
  fi
  if [[ "$rate" != none ]]; then
    burst=$(( $(rate_bits "$rate") / 8 / 250 ))
    (( burst >= 65536 )) || burst=65536
    # shellcheck disable=SC2086
    tc -n "$ns" qdisc add dev "$dev" $parent handle 2: tbf rate "$rate" burst "$burst" latency 50ms
  fi
}
# attach_host I: host I's namespace, its link to the bridge and its address, unshaped.
attach_host() {
  local i="$1" ns
  ns="$(host_ns "$i")"
  ip netns add "$ns"; CREATED_NS+=("$ns")
  ip link add "$(host_link "$i")" netns "$ns" type veth peer name "$(port_link "$i")" netns "$BRIDGE_NS"
  ip -n "$BRIDGE_NS" link set "$(port_link "$i")" master "$BRIDGE"
  ip -n "$BRIDGE_NS" link set "$(port_link "$i")" up
  ip -n "$ns" addr add "$(host_address "$i")/24" dev "$(host_link "$i")"
  ip -n "$ns" link set "$(host_link "$i")" up
  ip -n "$ns" link set lo up
}
create_network() {
  ip netns add "$BRIDGE_NS"; CREATED_NS+=("$BRIDGE_NS")
  ip -n "$BRIDGE_NS" link add "$BRIDGE" type bridge
  ip -n "$BRIDGE_NS" link set "$BRIDGE" up
  local i ns
  for ((i = 0; i <= HOSTS; i++)); do
    attach_host "$i"
    ns="$(host_ns "$i")"
    # what the host sends: delay, loss, rate; what it receives: the rate
    shape "$ns" "$(host_link "$i")" "${HOST_RATE[$i]}" "${HOST_DELAY[$i]}" "${HOST_LOSS[$i]}"
    shape "$BRIDGE_NS" "$(port_link "$i")" "${HOST_RATE[$i]}" 0ms 0
    remember_link "$i" "${HOST_RATE[$i]}" "${HOST_DELAY[$i]}" "${HOST_LOSS[$i]}"
    printf '%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$(if ((i == 0)); then echo driver; else echo worker; fi)" \
      "$ns" "$(host_address "$i")" "$(port_link "$i")" "${HOST_RATE[$i]}" "${HOST_DELAY[$i]}" "${HOST_LOSS[$i]}" \
      >> "$LAB_DIR/hosts.tsv"
  done
}

# in_host I NAME COMMAND...: starts COMMAND inside host I's namespace, bounded by the time limit, in the
# background, output to logs/NAME.log; sets LAST_PID.
in_host() {
  local i="$1" name="$2"
  shift 2
  ip netns exec "$(host_ns "$i")" timeout --kill-after=10 "$TIME_LIMIT" \
    env -u SPARK_CONF_DIR SPARK_HOME="$SPARK_HOME_DIR" SPARK_SCALA_VERSION="$SCALA_BINARY_VERSION" \
    SPARK_LOCAL_IP="$(host_address "$i")" OMP_NUM_THREADS=1 "$@" >> "$LAB_DIR/logs/$name.log" 2>&1 &
  LAST_PID=$!
  STARTED_PIDS+=("$LAST_PID")
}

# Master and Workers as the tests' StandaloneCluster starts them: Spark's Maven jars as the class path, an
# empty SPARK_HOME/jars, SPARK_SCALA_VERSION of the class path's Scala, one address per JVM.
daemon_java() {
  printf '%s\n' "$JAVA" "-Xmx$DAEMON_HEAP" "${OPENS[@]}" "-Dlog4j2.configurationFile=file://$LOG_CONFIG" -cp "$CP"
}
MASTER_URL="spark://$(host_address 0):$MASTER_PORT"
start_cluster() {
  local -a java
  mapfile -t java < <(daemon_java)
  in_host 0 master "${java[@]}" org.apache.spark.deploy.master.Master --host "$(host_address 0)" \
    --port "$MASTER_PORT" --webui-port "$MASTER_UI_PORT" "${DAEMON_SECURITY[@]}"
  local i
  for ((i = 1; i <= HOSTS; i++)); do
    [[ " ${LATE_WORKERS[*]} " == *" $i "* ]] || start_worker "$i"
  done
}
# start_worker HOST: its Worker, which decommissions its executors on SIGPWR (spark.decommission.enabled), as a
# cluster manager's node notice does; WORKER_PIDS[HOST] is the PID of the command that runs it.
declare -A WORKER_PIDS=()
start_worker() {
  local i="$1" java
  mapfile -t java < <(daemon_java)
  mkdir -p "$LAB_DIR/work/host-$i"
  in_host "$i" "worker-$i" "${java[@]}" -Dspark.decommission.enabled=true \
    org.apache.spark.deploy.worker.Worker --host "$(host_address "$i")" \
    --cores "$CORES" --memory "$MEMORY" --work-dir "$LAB_DIR/work/host-$i" "${DAEMON_SECURITY[@]}" "$MASTER_URL"
  WORKER_PIDS[$i]=$LAST_PID
}
# worker_jvm HOST: the Worker's JVM, the last process of the ip netns exec / timeout / env chain in_host starts.
worker_jvm() {
  local pid="${WORKER_PIDS[$1]}" child
  while child="$(pgrep -P "$pid" | head -n 1)" && [[ -n "$child" ]]; do pid="$child"; done
  printf '%s\n' "$pid"
}

# The Master's /json/ (asked inside host 0, with bash's own /dev/tcp) until every Worker is ALIVE.
await_workers() {
  local deadline=$((SECONDS + 300)) state=""
  while ((SECONDS < deadline)); do
    state="$(ip netns exec "$(host_ns 0)" timeout 5 bash -c \
      'exec 3<>"/dev/tcp/$0/$1" && printf "GET /json/ HTTP/1.0\r\n\r\n" >&3 && cat <&3' \
      "$(host_address 0)" "$MASTER_UI_PORT" 2>/dev/null || true)"
    if [[ "$state" =~ \"aliveworkers\"[[:space:]]*:[[:space:]]*([0-9]+) && "${BASH_REMATCH[1]}" == "$((HOSTS - ${#LATE_WORKERS[@]}))" ]]; then
      return 0
    fi
    sleep 1
  done
  die "the Spark cluster did not come up within 300 s (want $HOSTS alive workers); logs in $LAB_DIR/logs" 1
}

# One JSON line per sample: the time and every bridge port's counters (port i carries host i's traffic).
# With train writing locally, also the rounds completed so far (its metrics lines are flushed as rounds end).
start_sampler() {
  local iterations=""
  [[ "$COMMAND" == train && "$OUTPUT" != *://* ]] && iterations="$OUTPUT/metrics/iterations.jsonl"
  timeout --kill-after=5 "$TIME_LIMIT" bash -c '
    while :; do
      rounds=-1
      [[ -n "$3" && -f "$3" ]] && rounds="$(wc -l < "$3")"
      printf "{\"t\":%s,\"rounds\":%s,\"links\":%s}\n" "$EPOCHREALTIME" "$rounds" "$(ip -n "$1" -s -j link show)"
      sleep "$2"
    done' "${PREFIX}-sampler" "$BRIDGE_NS" 0.5 "$iterations" > "$LAB_DIR/counters/samples.jsonl" \
      2>"$LAB_DIR/logs/sampler.log" &
  SAMPLER_PID=$!
}
snapshot() { printf '{"t":%s,"links":%s}\n' "$EPOCHREALTIME" "$(ip -n "$BRIDGE_NS" -s -j link show)" > "$LAB_DIR/counters/$1.json"; }

lab_java() {
  timeout --kill-after=5 300 "$JAVA" -Xmx256m -cp "$CP" "$@"
}

probe() {
  ((PROBE_MB > 0)) || return 0
  local port=5201
  local -a java
  mapfile -t java < <(printf '%s\n' "$JAVA" -Xmx128m -cp "$CP")
  in_host 0 probe-receive "${java[@]}" org.bitopk.lab.network.TimedTransfer receive "$(host_address 0)" "$port" \
    "$LAB_DIR/counters/probe.json"
  local receiver=$LAST_PID
  sleep 1
  # the sender is bash's /dev/tcp (one JVM less on a busy machine), retrying until the receiver listens
  in_host 1 probe-send bash -c 'for try in {1..100}; do
      head -c "$2" /dev/zero 2>/dev/null > "/dev/tcp/$0/$1" && exit 0; sleep 0.2; done; exit 1' \
    "$(host_address 0)" "$port" "$((PROBE_MB * 1000000))"
  wait "$receiver" || die "the probe transfer failed; see $LAB_DIR/logs/probe-*.log" 1
}

# The hook `time-to-accuracy --rates` calls between link settings (its path in $BITOPK_NETLAB_RESHAPE):
# `reshape.sh RATE` sets every host's link to RATE (delay and loss as they are), times a transfer from host 1
# to host 0 as --probe does, and prints the measured Mbit/s as its last line.
write_reshape_hook() {
  local hook="$LAB_DIR/reshape.sh" i
  {
    printf '#!/usr/bin/env bash\nset -euo pipefail\n'
    declare -f rate_bits is_zero shape
    printf 'rate="${1:-}" RATE_RE=%q\n' "$RATE_RE"
    printf '[[ "$rate" =~ $RATE_RE ]] || { echo "reshape.sh: rate expected like 100mbit or none, got $rate" >&2; exit 2; }\n'
    for ((i = 0; i <= HOSTS; i++)); do
      printf 'shape %q %q "$rate" %q %q\nshape %q %q "$rate" 0ms 0\n' "$(host_ns "$i")" "$(host_link "$i")" \
        "${HOST_DELAY[$i]}" "${HOST_LOSS[$i]}" "$BRIDGE_NS" "$(port_link "$i")"
    done
    printf 'printf "%%s\\t%%s\\n" "$EPOCHREALTIME" "$rate" >> %q\n' "$LAB_DIR/counters/reshape.tsv"
    # about a second's worth of the rate (12 MB at least; 300 MB unshaped), received by the lab's TimedTransfer
    printf 'case "$rate" in none) mb=300 ;; *) mb=$(( $(rate_bits "$rate") / 8000000 )); ((mb >= 12)) || mb=12 ;; esac\n'
    printf 'result=%q/counters/probe-$rate.json\n' "$LAB_DIR"
    printf 'ip netns exec %q timeout 120 %q -Xmx128m -cp %q org.bitopk.lab.network.TimedTransfer receive %q 5202 "$result" &\n' \
      "$(host_ns 0)" "$JAVA" "$CP" "$(host_address 0)"
    printf 'receiver=$!\nsleep 1\n'
    printf 'ip netns exec %q timeout 120 bash -c %q %q 5202 "$((mb * 1000000))"\n' "$(host_ns 1)" \
      'for try in {1..100}; do head -c "$2" /dev/zero 2>/dev/null > "/dev/tcp/$0/$1" && exit 0; sleep 0.2; done; exit 1' \
      "$(host_address 0)"
    printf 'wait "$receiver"\n'
    printf 'sed -n %q "$result"\n' 's/.*"mbit_per_second" *: *\([0-9.eE+-]*\).*/\1/p'
  } > "$hook"
  chmod 700 "$hook"
  export BITOPK_NETLAB_RESHAPE="$hook"
  export BITOPK_NETLAB_SETTINGS="submit/netlab.sh --hosts $HOSTS --cores $CORES --memory $MEMORY --driver-memory $DRIVER_MEMORY"
}

# The hook `time-to-accuracy --cut` calls around each measured run (its path in $BITOPK_NETLAB_LINK, the worker
# hosts in $BITOPK_NETLAB_HOSTS): `link.sh HOST down|up` takes worker host HOST's link down or brings it up, as a
# down=S fault does, and logs the change to counters/faults.tsv like the lab's own faults.
write_link_hook() {
  local hook="$LAB_DIR/link.sh"
  {
    printf '#!/usr/bin/env bash\nset -euo pipefail\n'
    printf 'host="${1:-}" state="${2:-}" hosts=%d\n' "$HOSTS"
    printf '[[ "$host" =~ ^[1-9][0-9]*$ && "$host" -le "$hosts" && ( "$state" == down || "$state" == up ) ]] || { echo "link.sh: expected a worker host 1..$hosts and down or up, got: $*" >&2; exit 2; }\n'
    printf 'ip -n "%s-h$host" link set "%s-v$host" "$state"\n' "$PREFIX" "$PREFIX"
    printf 'printf "%%s\\t%%d\\t%%s\\n" "$EPOCHREALTIME" "$host" "link $state" >> %q\n' "$LAB_DIR/counters/faults.tsv"
  } > "$hook"
  chmod 700 "$hook"
  export BITOPK_NETLAB_LINK="$hook" BITOPK_NETLAB_HOSTS="$HOSTS"
}

# --- the job ------------------------------------------------------------------------------------------------
# Where the job writes: its --output (train) or --out, else a run directory in the lab directory for train.
job_output() {
  local i
  for ((i = 0; i < ${#JOB_ARGS[@]}; i++)); do
    case "${JOB_ARGS[$i]}" in
      --output|--out) printf '%s' "${JOB_ARGS[$((i + 1))]:-}"; return 0 ;;
      --output=*|--out=*) printf '%s' "${JOB_ARGS[$i]#*=}"; return 0 ;;
    esac
  done
}
OUTPUT="$(job_output)"
case "${JOB_ARGS[0]}" in
  time-to-accuracy|experiment|report|reproduction|evaluate-compressors) COMMAND="${JOB_ARGS[0]}" ;;
  *) COMMAND=train ;;
esac
if [[ -z "$OUTPUT" && "$COMMAND" == train ]]; then
  OUTPUT="$LAB_DIR/run"
  JOB_ARGS+=(--output "$OUTPUT")
fi

run_driver() {
  local -a java
  mapfile -t java < <(printf '%s\n' "$JAVA" "-Xmx$DRIVER_MEMORY" "${OPENS[@]}")
  local address; address="$(host_address 0)"
  in_host 0 driver "${java[@]}" "-Dlog4j2.configurationFile=file://$LOG_CONFIG" \
    "-Dspark.master=$MASTER_URL" "-Dspark.driver.host=$address" "-Dspark.driver.bindAddress=$address" \
    "-Dspark.ui.enabled=false" "-Dspark.executor.extraClassPath=$CP" \
    "-Dspark.extraListeners=org.bitopk.lab.network.SparkTaskTimings" "-Dspark.bitopk.lab.timings=$LAB_DIR/spark-timings.json" \
    "-Dspark.executor.extraJavaOptions=${SPARK_OPENS} -Dlog4j2.configurationFile=file://$LOG_CONFIG$EXECUTOR_AGENT" \
    "-Dspark.executorEnv.OMP_NUM_THREADS=1" "-Dspark.executor.memory=$MEMORY" \
    "-Dspark.executor.cores=$CORES" "-Dspark.cores.max=$((HOSTS * CORES))" \
    "-Dspark.scheduler.minRegisteredResourcesRatio=1.0" "-Dspark.scheduler.maxRegisteredResourcesWaitingTime=120s" \
    "-Dspark.decommission.enabled=true" "${DRIVER_SECURITY[@]}" "${USER_CONF[@]}" -cp "$CP" "$BITOPK_MAIN_CLASS" "${JOB_ARGS[@]}"
  DRIVER_PID=$LAST_PID
}

# --- faults --------------------------------------------------------------------------------------------------
# The current settings of each host's link, so that a fault changes one of them and keeps the others.
remember_link() { printf '%s\t%s\t%s\n' "$2" "$3" "$4" > "$LAB_DIR/counters/link-$1.tsv"; }
# sample_tcp HOST SECONDS: while a link is down and a while after, the TCP connections between host HOST and
# the driver's host as both kernels see them (ss: retransmission timer, backoff, unacknowledged bytes), every
# half second into counters/tcp-HOST.txt: when each side retransmits is when a healed link carries data again.
sample_tcp() {
  local host="$1" until=$((SECONDS + $2)) address
  address="$(host_address "$host")"
  while ((SECONDS < until)) && kill -0 "$DRIVER_PID" 2>/dev/null; do
    printf '# %s host %d\n' "$EPOCHREALTIME" "$host"
    ip netns exec "$(host_ns "$host")" ss -tinoH state established 2>&1 || true
    printf '# %s host 0 towards %s\n' "$EPOCHREALTIME" "$address"
    ip netns exec "$(host_ns 0)" ss -tinoH state established dst "$address" 2>&1 || true
    sleep 0.5
  done >> "$LAB_DIR/counters/tcp-$host.txt"
}
# run_fault SPEC: waits for the fault's moment (while the driver runs), applies it, logs it to faults.tsv.
run_fault() {
  [[ "$1" =~ ^([0-9]+):(\+[0-9]+|r[0-9]+):([a-z]+)(=(.+))?$ ]]
  local host="${BASH_REMATCH[1]}" when="${BASH_REMATCH[2]}" what="${BASH_REMATCH[3]}" value="${BASH_REMATCH[5]}"
  local ns link rounds=0 rate delay loss
  ns="$(host_ns "$host")"; link="$(host_link "$host")"
  while kill -0 "$DRIVER_PID" 2>/dev/null; do
    if [[ "$when" == +* ]]; then
      ((SECONDS - JOB_START >= ${when#+})) && break
    else
      [[ -f "$OUTPUT/metrics/iterations.jsonl" ]] && rounds="$(wc -l < "$OUTPUT/metrics/iterations.jsonl")"
      ((rounds >= ${when#r})) && break
    fi
    sleep 0.2
  done
  kill -0 "$DRIVER_PID" 2>/dev/null || return 0
  log_fault() { printf '%s\t%d\t%s\n' "$EPOCHREALTIME" "$host" "$1" >> "$LAB_DIR/counters/faults.tsv"; }
  IFS=$'\t' read -r rate delay loss < "$LAB_DIR/counters/link-$host.tsv"
  case "$what" in
    down)
      ip -n "$ns" link set "$link" down; log_fault "link down"
      sample_tcp "$host" $((value + 30)) &
      sleep "$value"
      ip -n "$ns" link set "$link" up; log_fault "link up" ;;
    decommission)
      kill -PWR "$(worker_jvm "$host")"; log_fault "worker decommissioned (SIGPWR)"
      return 0 ;;
    start)
      start_worker "$host"; log_fault "worker started"
      return 0 ;;
    delay) delay="$value" ;;
    loss) loss="$value" ;;
    rate) rate="$value" ;;
  esac
  if [[ "$what" != down ]]; then
    shape "$ns" "$link" "$rate" "$delay" "$loss"
    shape "$BRIDGE_NS" "$(port_link "$host")" "$rate" 0ms 0
    remember_link "$host" "$rate" "$delay" "$loss"
    log_fault "rate $rate delay $delay loss $loss%"
  fi
}
for fault in "${FAULTS[@]}"; do
  if [[ "$fault" =~ :r[0-9]+: && ( "$COMMAND" != train || "$OUTPUT" == *://* ) ]]; then
    die "option --fault '$fault': a round as the moment needs train with a local --output (the lab reads its metrics)"
  fi
done

# PyTorch DDP systems need Debian's python3-torch on every host (one machine here): installed as the lab is root
if [[ "$COMMAND" == time-to-accuracy && " ${JOB_ARGS[*]} " =~ [\ ,]ddp- ]]; then
  "$BITOPK_SUBMIT_DIR/install-torch.sh" || die "PyTorch is needed for the ddp-* systems; see submit/install-torch.sh" 2
fi

echo "netlab.sh: ${PREFIX}: $((HOSTS + 1)) hosts (${ADDRESS_BASE}1 driver and Master, ${ADDRESS_BASE}2..$((HOSTS + 1)) workers), lab directory $LAB_DIR" >&2
create_network
write_reshape_hook
write_link_hook
create_rogue_host
prepare_lab_security
start_cluster
await_workers
probe
snapshot before
start_sampler
JOB_START=$SECONDS
: > "$LAB_DIR/logs/driver.log"
run_driver
start_rogue
# the driver's console is its log; show it as it comes
tail --pid="$DRIVER_PID" -n +1 -f "$LAB_DIR/logs/driver.log" &
TAIL_PID=$!
STARTED_PIDS+=("$TAIL_PID")
for fault in "${FAULTS[@]}"; do
  run_fault "$fault" &
  STARTED_PIDS+=("$!")
done
set +e
wait "$DRIVER_PID"
JOB_STATUS=$?
set -e
await_rogue
wait "$TAIL_PID" 2>/dev/null || true
snapshot after

# Into the lab directory: a run directory holds only what the run wrote (anything else makes it refuse
# --resume and --overwrite).
lab_java org.bitopk.lab.network.WireSummary "$LAB_DIR" "$COMMAND" "${OUTPUT:-none}" "$LAB_DIR/netlab.json" "$JOB_STATUS" \
  || echo "netlab.sh: could not write the wire summary (see above)" >&2
exit "$JOB_STATUS"
