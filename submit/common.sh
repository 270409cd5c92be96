# Shared by the submit scripts; sourced, never run. Pure bash (no external commands besides spark-submit, and
# unzip or the JDK's jar tool when present, to read a jar's manifest), so that a missing spark-submit is reported
# clearly even on a bare PATH.

BITOPK_MAIN_CLASS="org.bitopk.cli.Main"
# The executors' warm-up agent: the application jar's Premain-Class (the parent pom writes it).
BITOPK_AGENT_CLASS="org.bitopk.job.spark.ExecutorWarmUpAgent"

# print_text <<EOF ... EOF: prints a here-document without cat.
print_text() {
  local text
  IFS= read -r -d '' text || true
  printf '%s' "$text"
}

# die MESSAGE [STATUS]: one line on stderr, non-zero exit.
die() {
  printf '%s: error: %s\n' "${BITOPK_SCRIPT_NAME}" "$1" >&2
  exit "${2:-2}"
}

# Finds spark-submit on PATH, else under $SPARK_HOME/bin; sets SPARK_SUBMIT.
find_spark_submit() {
  if SPARK_SUBMIT="$(command -v spark-submit)"; then
    return 0
  fi
  if [[ -n "${SPARK_HOME:-}" && -x "${SPARK_HOME}/bin/spark-submit" ]]; then
    SPARK_SUBMIT="${SPARK_HOME}/bin/spark-submit"
    return 0
  fi
  die "spark-submit not found on PATH nor in \$SPARK_HOME/bin; install Spark 4 (Scala 2.13) or 3.5 (Scala 2.12) and put its bin/ on PATH"
}

# The Spark lines bitopk builds for, by Scala version: 2.13 is Spark 4 (the default build), 2.12 is Spark 3.5.
spark_line_of() {
  case "$1" in
    2.13) printf '4' ;;
    2.12) printf '3.5' ;;
  esac
}
build_command_of() {
  case "$1" in
    2.13) printf 'mvn -B -pl job -am package -DskipTests' ;;
    2.12) printf 'mvn -B -Pspark-3.5 -pl job/dl4j-baselines -am package -DskipTests' ;;
  esac
}

# Reads the cluster's Spark and Scala versions from `spark-submit --version`; sets CLUSTER_SPARK (e.g. 4.2.0) and
# CLUSTER_SCALA (e.g. 2.13). A Spark that is not one of bitopk's lines is refused.
read_spark_version() {
  local banner
  banner="$("$SPARK_SUBMIT" --version 2>&1)" \
    || die "'$SPARK_SUBMIT --version' failed; expected Spark's version banner: ${banner//$'\n'/ }"
  [[ "$banner" =~ version[[:space:]]+([0-9]+[.][0-9]+[.][0-9]+[^[:space:]]*) ]] \
    || die "'$SPARK_SUBMIT --version' printed no Spark version; expected Spark's version banner"
  CLUSTER_SPARK="${BASH_REMATCH[1]}"
  [[ "$banner" =~ Scala[[:space:]]+version[[:space:]]+([0-9]+[.][0-9]+) ]] \
    || die "'$SPARK_SUBMIT --version' printed no Scala version; expected Spark's version banner"
  CLUSTER_SCALA="${BASH_REMATCH[1]}"
  case "$CLUSTER_SPARK/$CLUSTER_SCALA" in
    4.*/2.13|3.5.*/2.12) ;;
    *) die "spark-submit is Spark $CLUSTER_SPARK (Scala $CLUSTER_SCALA); bitopk builds for Spark 4 with Scala 2.13 ($(build_command_of 2.13)) and Spark 3.5 with Scala 2.12 ($(build_command_of 2.12))" ;;
  esac
}

# Resolves the application jar for the cluster's line (read_spark_version first): --jar, else $BITOPK_JAR, else
# job/target/bitopk_<Scala version>-*.jar, the one `mvn package` builds for that line. A jar named for the other
# line is refused. URIs (hdfs://, s3a://, local://, http://) are passed through: the cluster fetches them.
find_app_jar() {
  local wanted="${1:-${BITOPK_JAR:-}}" build
  build="$(build_command_of "$CLUSTER_SCALA")"
  if [[ -n "$wanted" ]]; then
    if [[ "$wanted" != *://* && ! -f "$wanted" ]]; then
      die "application jar not found: $wanted (build it for Spark $CLUSTER_SPARK with: $build)"
    fi
    if [[ "${wanted##*/}" =~ _(2[.]1[0-9])[-.] && "${BASH_REMATCH[1]}" != "$CLUSTER_SCALA" ]]; then
      die "the jar $wanted is built for Spark $(spark_line_of "${BASH_REMATCH[1]}") (Scala ${BASH_REMATCH[1]}) but spark-submit is Spark $CLUSTER_SPARK (Scala $CLUSTER_SCALA); build its jar with: $build"
    fi
    APP_JAR="$wanted"
    return 0
  fi
  local candidate
  for candidate in "${BITOPK_REPO}"/job/target/bitopk_"${CLUSTER_SCALA}"-*.jar; do
    if [[ -f "$candidate" ]]; then
      APP_JAR="$candidate"
      return 0
    fi
  done
  for candidate in "${BITOPK_REPO}"/job/target/bitopk_2.1[0-9]-*.jar; do
    if [[ -f "$candidate" && "$candidate" =~ _(2[.]1[0-9])- ]]; then
      die "job/target has only ${candidate##*/}, built for Spark $(spark_line_of "${BASH_REMATCH[1]}") (Scala ${BASH_REMATCH[1]}), but spark-submit is Spark $CLUSTER_SPARK (Scala $CLUSTER_SCALA); build its jar with: $build"
    fi
  done
  die "no application jar for Spark $CLUSTER_SPARK (Scala $CLUSTER_SCALA) in ${BITOPK_REPO}/job/target (build it with: $build, or pass --jar)"
}

# Turns every "key value" line of a spark-defaults.conf style file into --conf key=value in SUBMIT_CONF.
# Lines starting with # and blank lines are skipped. Explicit --conf options given later override these.
load_defaults() {
  local file="$1" line key value
  [[ -f "$file" ]] || die "Spark defaults file not found: $file"
  while IFS= read -r line || [[ -n "$line" ]]; do
    line="${line#"${line%%[![:space:]]*}"}"
    [[ -z "$line" || "$line" == \#* ]] && continue
    key="${line%%[[:space:]=]*}"
    value="${line#"$key"}"
    value="${value#"${value%%[![:space:]]*}"}"
    value="${value#=}"
    value="${value#"${value%%[![:space:]]*}"}"
    value="${value%"${value##*[![:space:]]}"}"
    [[ -n "$value" ]] || die "no value for '$key' in $file (expected: key<whitespace>value)"
    SUBMIT_CONF+=(--conf "$key=$value")
  done < "$file"
}

# require_value OPTION VALUE: the option needs an argument.
require_value() {
  [[ $# -ge 2 && -n "$2" && "$2" != --* ]] || die "option $1 needs a value (see --help)"
}

# require_setting OPTION VALUE: a Spark setting, KEY=VALUE.
require_setting() {
  [[ "$2" == *=* ]] || die "option $1 expects key=value, got '$2'"
}

# require_positive_int OPTION VALUE
require_positive_int() {
  [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "option $1 must be a positive integer, got '$2'"
}

# append_to_last_setting ARRAY KEY TEXT: appends " TEXT" to the last --conf KEY=... in the array named ARRAY;
# fails when the array has none.
append_to_last_setting() {
  local -n settings="$1"
  local i
  for (( i = ${#settings[@]} - 1; i >= 0; i-- )); do
    if [[ "${settings[$i]}" == "$2="* ]]; then
      settings[$i]+=" $3"
      return 0
    fi
  done
  return 1
}

# append_executor_java_option OPTION: adds OPTION to spark.executor.extraJavaOptions as it will be passed (the last
# explicit --conf of it, else the defaults file's), without replacing what is there.
append_executor_java_option() {
  local key=spark.executor.extraJavaOptions
  append_to_last_setting EXPLICIT_CONF "$key" "$1" || append_to_last_setting SUBMIT_CONF "$key" "$1" \
    || SUBMIT_CONF+=(--conf "$key=$1")
}

# require_manifest_entry JAR ENTRY WHY: a local JAR's manifest must carry the line ENTRY, else one error line that
# says WHY; a remote jar, or a machine with neither unzip nor the JDK's jar tool, is not checked.
require_manifest_entry() {
  local jar="$1" entry="$2" why="$3" manifest="" dir
  [[ "$jar" != *://* ]] || return 0
  if command -v unzip >/dev/null; then
    manifest="$(unzip -p "$jar" META-INF/MANIFEST.MF 2>/dev/null)" || manifest=""
  elif command -v jar >/dev/null; then
    [[ "$jar" == /* ]] || jar="$PWD/$jar"
    dir="$(mktemp -d)"
    (cd "$dir" && jar xf "$jar" META-INF/MANIFEST.MF 2>/dev/null) || true
    manifest="$(cat "$dir/META-INF/MANIFEST.MF" 2>/dev/null)" || manifest=""
    rm -rf "$dir"
  else
    return 0
  fi
  [[ "${manifest//$'\r'/}" == *"$entry"* ]] || die "$1: its manifest lacks '$entry', $why"
}

# warm_executors_from PATH [LOCAL]: starts every executor with the job's warm-up agent, PATH being the application
# jar as the executors' JVMs see it when they start (the JVM then puts it on its class path); LOCAL (default PATH),
# that jar here if it is a file here, must name the agent in its manifest.
warm_executors_from() {
  local here="${2:-$1}"
  [[ ! -f "$here" ]] || require_manifest_entry "$here" "Premain-Class: $BITOPK_AGENT_CLASS" \
    "which --warm-executors needs (every executor's JVM would fail to start): build the jar again"
  append_executor_java_option "-javaagent:$1"
}

# Runs (or with --dry-run prints) spark-submit with the collected options, the jar and the job arguments.
# Order matters: the defaults file, then the script's own settings, then explicit --conf (last one wins).
run_submit() {
  local cmd=("$SPARK_SUBMIT" --class "$BITOPK_MAIN_CLASS" "${SUBMIT_EXTRA[@]}" "${SUBMIT_CONF[@]}"
             "${EXPLICIT_CONF[@]}" "$APP_JAR" "${JOB_ARGS[@]}")
  if [[ "${DRY_RUN:-0}" == 1 ]]; then
    local i
    for i in "${!cmd[@]}"; do   # the printed command may end up in a log or a terminal: hide the secret
      [[ "${cmd[$i]}" != spark.authenticate.secret=* ]] || cmd[$i]="spark.authenticate.secret=<hidden>"
    done
    printf '%q ' "${cmd[@]}"
    printf '\n'
    return 0
  fi
  exec "${cmd[@]}"
}

# In client deploy mode the driver runs in spark-submit's own JVM, whose Spark prints its warnings on the console
# before the job takes the console over (and sends Spark's messages into the run's log file): with
# log4j2-driver.properties only errors reach the console until then. Not with the job's --verbose, nor when
# SPARK_SUBMIT_OPTS names a log4j2 configuration of its own.
quiet_driver_console() {
  local arg dir="$BITOPK_SUBMIT_DIR"
  for arg in "${JOB_ARGS[@]}"; do
    [[ "$arg" != --verbose ]] || return 0
  done
  [[ "${SPARK_SUBMIT_OPTS:-}" != *log4j2.configurationFile* ]] || return 0
  [[ "$dir" == /* ]] || dir="$PWD/$dir"
  export SPARK_SUBMIT_OPTS="-Dlog4j2.configurationFile=$dir/log4j2-driver.properties${SPARK_SUBMIT_OPTS:+ $SPARK_SUBMIT_OPTS}"
}

# Parses the options every script shares; the script's own options come first via parse_specific().
# Everything after "--", or from the first argument the scripts do not know, goes to the job.
parse_common() {
  SUBMIT_CONF=()
  SUBMIT_EXTRA=()
  JOB_ARGS=()
  JAR_OPTION=""
  DEFAULTS_FILE="${BITOPK_SPARK_DEFAULTS:-${BITOPK_SUBMIT_DIR}/spark-defaults.conf}"
  DRY_RUN=0
  EXPLICIT_CONF=()
  while [[ $# -gt 0 ]]; do
    case "$1" in
      -h|--help) usage; exit 0 ;;
      --jar) require_value "$@"; JAR_OPTION="$2"; shift 2 ;;
      --defaults) require_value "$@"; DEFAULTS_FILE="$2"; shift 2 ;;
      --conf) require_value "$@"; require_setting "$@"; EXPLICIT_CONF+=(--conf "$2"); shift 2 ;;
      --dry-run) DRY_RUN=1; shift ;;
      --) shift; JOB_ARGS+=("$@"); break ;;
      *)
        if parse_specific "$@"; then
          shift "$SHIFT_BY"
        else
          JOB_ARGS+=("$@")
          break
        fi
        ;;
    esac
  done
  load_defaults "$DEFAULTS_FILE"
}

# Spark's RPC authentication, RPC encryption (AES-GCM over the authenticated channel) and the encryption of
# blocks written to local disks (shuffle, spills, cached blocks): on in every cluster script unless --insecure.
SECURITY_CONF=(--conf spark.authenticate=true --conf spark.network.crypto.enabled=true
               --conf spark.io.encryption.enabled=true)
SECURITY=on

# parse_security_option ARGS...: the cluster scripts' --insecure (call it from parse_specific).
parse_security_option() {
  [[ "$1" == --insecure ]] || return 1
  SECURITY=off
  SHIFT_BY=1
}

# Adds SECURITY_CONF after the defaults file's settings (an explicit --conf still wins), unless --insecure.
add_security_conf() {
  [[ "$SECURITY" == on ]] || return 0
  SUBMIT_CONF+=("${SECURITY_CONF[@]}")
}

# read_secret_file FILE: sets SECRET from the file's first line; refuses a file that others may read. A link is
# judged by the file it points to (what spark-submit would read); a Windows line end (CR) is not part of the secret.
read_secret_file() {
  local file="$1" mode
  [[ -f "$file" && -r "$file" ]] || die "secret file not found or not readable: $file"
  mode="$(stat -L -c %a -- "$file" 2>/dev/null || stat -L -f %Lp -- "$file")" \
    || die "cannot read the permissions of the secret file $file"
  (( (8#$mode & 8#077) == 0 )) \
    || die "secret file $file has mode $mode: group and others must have no access (chmod 600 $file)"
  IFS= read -r SECRET < "$file" || true
  SECRET="${SECRET%$'\r'}"
  [[ -n "$SECRET" ]] || die "secret file $file is empty (expected the shared secret on its first line)"
  require_strong_secret "$file"
}

# require_strong_secret WHERE: a guessable secret would let any host on the network join the cluster; blanks and
# control characters would not survive a properties file (and are a copy-and-paste accident).
require_strong_secret() {
  (( ${#SECRET} >= 16 )) \
    || die "the shared secret from $1 has ${#SECRET} characters: use at least 16 (e.g. openssl rand -hex 32)"
  [[ "$SECRET" != *[[:space:][:cntrl:]]* ]] \
    || die "the shared secret from $1 contains a blank or a control character: use printable characters only (e.g. openssl rand -hex 32)"
}

# The --help paragraph of the cluster scripts whose cluster manager makes the secret itself.
generated_secret_help() {
  print_text <<HELP
Security (on by default): the script sets spark.authenticate=true, spark.network.crypto.enabled=true and
spark.io.encryption.enabled=true; $1 generates a secret per application and hands it to the executors.
  --insecure           leave all three to the cluster's own configuration (Spark's default: off)
HELP
}

# The part of --help every script shares.
common_options_help() {
  print_text <<HELP
Options shared by every script:
  --jar PATH|URI       application jar (default: \$BITOPK_JAR, else job/target/bitopk_<Scala>-*.jar for the
                       Scala of \`spark-submit --version\`; build it for Spark 4 (Scala 2.13) with
                       mvn -B -pl job -am package -DskipTests, for Spark 3.5 (Scala 2.12) with
                       mvn -B -Pspark-3.5 -pl job/dl4j-baselines -am package -DskipTests)
  --defaults FILE      Spark settings to pass as --conf (default: submit/spark-defaults.conf,
                       or \$BITOPK_SPARK_DEFAULTS)
  --conf KEY=VALUE     one more Spark setting; overrides the defaults file (repeatable)
  --dry-run            print the spark-submit command instead of running it
  -h, --help           this help
  --                   end of the script's options: everything after it goes to the job
                       (the first argument the script does not know also starts the job's arguments)

spark-submit is looked up on PATH, then in \$SPARK_HOME/bin. Run the job's own help with:
  $BITOPK_SCRIPT_NAME [options] -- --help
HELP
}

# Sets BITOPK_SUBMIT_DIR / BITOPK_REPO from the sourcing script's location (pure bash: no dirname).
locate_repo() {
  local script="$1"
  if [[ "$script" == */* ]]; then BITOPK_SUBMIT_DIR="${script%/*}"; else BITOPK_SUBMIT_DIR="."; fi
  BITOPK_REPO="${BITOPK_SUBMIT_DIR}/.."
  BITOPK_SCRIPT_NAME="${script##*/}"
}
