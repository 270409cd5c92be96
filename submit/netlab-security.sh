# Spark's security on the network lab; sourced by netlab.sh, never run.
#   --secure   the lab's Master, Workers and driver share a fresh secret: authentication, RPC encryption and
#              encrypted local blocks, as submit/standalone.sh sets them up
#   --rogue    one more host on the bridge, holding no secret, tries for real what an attacker on the network
#              would while the job runs: register a Worker with the Master, submit an application, fetch
#              broadcast blocks (the model updates) from the driver's block manager without a secret and with
#              a wrong one. rogue.json in the lab directory says what each attempt got; the refusals the
#              Master's and the driver's logs name go into it too.

SECURE=0
ROGUE=0
DAEMON_SECURITY=()     # extra arguments of the Master and the Workers
DRIVER_SECURITY=()     # extra JVM arguments of the driver
DRIVER_BLOCK_PORT=7079 # fixed, so that the rogue host knows where the driver's block manager listens

# parse_security_option ARGS...: --secure and --rogue; sets SHIFT_BY, false for any other option.
parse_lab_security_option() {
  case "$1" in
    --secure) SECURE=1; SHIFT_BY=1 ;;
    --rogue) ROGUE=1; SHIFT_BY=1 ;;
    *) return 1 ;;
  esac
}

lab_security_help() {
  print_text <<'HELP'
  --secure             the cluster's Master, Workers and driver share a fresh secret: spark.authenticate,
                       spark.network.crypto.enabled and spark.io.encryption.enabled on, as standalone.sh sets
  --rogue              one more host on the bridge without the secret tries to register a Worker, submit an
                       application and fetch broadcast blocks from the driver while the job runs; what each
                       attempt got goes to rogue.json in the lab directory
HELP
}

# The secret in files only root may read: the daemons' properties file and the driver's JVM argument file
# (java @FILE), so that it never appears on a command line.
prepare_lab_security() {
  if ((ROGUE)) && [[ "$COMMAND" != train || "$OUTPUT" == *://* ]]; then
    die "option --rogue needs train with a local --output (the rogue host starts once a round is done)"
  fi
  DRIVER_SECURITY=("-Dspark.driver.blockManager.port=$DRIVER_BLOCK_PORT")
  ((SECURE)) || return 0
  local dir="$LAB_DIR/secure" secret
  mkdir -m 700 "$dir"
  secret="$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')"
  (umask 077
   printf 'spark.authenticate true\nspark.authenticate.secret %s\nspark.network.crypto.enabled true\nspark.io.encryption.enabled true\n' \
     "$secret" > "$dir/daemons.conf"
   printf -- '-Dspark.authenticate=true\n-Dspark.authenticate.secret=%s\n-Dspark.network.crypto.enabled=true\n-Dspark.io.encryption.enabled=true\n' \
     "$secret" > "$dir/driver.args")
  DAEMON_SECURITY=(--properties-file "$dir/daemons.conf")
  DRIVER_SECURITY+=("@$dir/driver.args")
}

# The rogue host: index HOSTS+1 on the same bridge, unshaped, not in hosts.tsv (it is no part of the job).
ROGUE_HOST=0
create_rogue_host() {
  ((ROGUE)) || return 0
  ROGUE_HOST=$((HOSTS + 1))
  attach_host "$ROGUE_HOST"
}

# master_state: the Master's /json/, asked from the driver's host.
master_state() {
  ip netns exec "$(host_ns 0)" timeout 5 bash -c \
    'exec 3<>"/dev/tcp/$0/$1" && printf "GET /json/ HTTP/1.0\r\n\r\n" >&3 && cat <&3' \
    "$(host_address 0)" "$MASTER_UI_PORT" 2>/dev/null || true
}

# rogue_attempts: once the job has completed a round, the three attempts at once from the rogue host, then
# what the Master saw and what the logs say; writes rogue.json. Runs in the background while the driver runs.
rogue_attempts() {
  local rounds=0 address master_host
  address="$(host_address "$ROGUE_HOST")"; master_host="$(host_address 0)"
  while kill -0 "$DRIVER_PID" 2>/dev/null && ((rounds < 1)); do
    [[ -f "$OUTPUT/metrics/iterations.jsonl" ]] && rounds="$(wc -l < "$OUTPUT/metrics/iterations.jsonl")"
    sleep 0.5
  done
  local -a java
  mapfile -t java < <(printf '%s\n' "$JAVA" -Xmx256m "${OPENS[@]}" "-Dlog4j2.configurationFile=file://$LOG_CONFIG" -cp "$CP")
  mkdir -p "$LAB_DIR/work/rogue"
  # a real Worker without the secret, asking the Master to take it in
  in_host "$ROGUE_HOST" rogue-worker "${java[@]}" org.apache.spark.deploy.worker.Worker --host "$address" \
    --cores 1 --memory 512m --work-dir "$LAB_DIR/work/rogue" "$MASTER_URL"
  local worker=$LAST_PID
  # a real submission (standalone cluster deploy mode: the Master would start the driver on a Worker)
  in_host "$ROGUE_HOST" rogue-submit "${java[@]}" org.apache.spark.deploy.SparkSubmit --master "$MASTER_URL" \
    --deploy-mode cluster --conf spark.master.rest.enabled=false --class "$BITOPK_MAIN_CLASS" \
    "file://$LAB_DIR/work/rogue/none.jar"
  local submit=$LAST_PID
  # Spark's block-transfer protocol against the driver's block manager, without a secret and with a wrong one
  in_host "$ROGUE_HOST" rogue-fetch "${java[@]}" org.bitopk.lab.network.RogueBlockFetch "$master_host" "$DRIVER_BLOCK_PORT" 0 400
  local fetch=$LAST_PID
  in_host "$ROGUE_HOST" rogue-fetch-wrong "${java[@]}" org.bitopk.lab.network.RogueBlockFetch "$master_host" "$DRIVER_BLOCK_PORT" \
    0 400 "$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')"
  local fetch_wrong=$LAST_PID
  local submit_status=0
  wait "$fetch" || true
  wait "$fetch_wrong" || true
  wait "$submit" || submit_status=$?
  # the Worker has had as long as the others to register, or, in a secured lab, it says the Master turned its
  # attempt down (it would only try again the same way, for minutes); then ask the Master what it let in
  local registered=0 deadline=$((SECONDS + 30)) state
  while ((SECONDS < deadline)); do
    state="$(master_state)"
    [[ "$state" == *"\"host\" : \"$address\""* || "$state" == *"\"host\":\"$address\""* ]] && { registered=1; break; }
    kill -0 "$worker" 2>/dev/null || break
    ((SECURE)) && grep -q 'Failed to connect to master' "$LAB_DIR/logs/rogue-worker.log" 2>/dev/null && break
    sleep 1
  done
  state="$(master_state)"
  kill -TERM "$worker" 2>/dev/null || true
  local drivers=0
  [[ "$state" =~ \"activedrivers\"[[:space:]]*:[[:space:]]*\[[[:space:]]*\{ || "$state" =~ \"completeddrivers\"[[:space:]]*:[[:space:]]*\[[[:space:]]*\{ ]] && drivers=1
  {
    printf '{"rogue_host":"%s","secure":%s,\n' "$address" "$( ((SECURE)) && echo true || echo false)"
    printf ' "register_worker":{"accepted":%s},\n' "$( ((registered)) && echo true || echo false)"
    printf ' "submit_application":{"accepted":%s,"exit_status":%d},\n' "$( ((drivers)) && echo true || echo false)" "$submit_status"
    printf ' "fetch_broadcast_without_secret":%s,\n' "$(tail -n 1 "$LAB_DIR/logs/rogue-fetch.log")"
    printf ' "fetch_broadcast_wrong_secret":%s,\n' "$(tail -n 1 "$LAB_DIR/logs/rogue-fetch-wrong.log")"
    printf ' "master_log_refusals":%d,"driver_log_refusals":%d}\n' \
      "$(refusals_logged "$address" "$LAB_DIR/logs/master.log")" \
      "$(refusals_logged "$address" "$LAB_DIR/logs/driver.log" "$OUTPUT"/logs/driver-*.log)"
  } > "$LAB_DIR/rogue.json"
}

# refusals_logged ADDRESS LOG...: lines where Spark names a failed authentication of a client at ADDRESS
# (the driver logs into the run's logs/ as well as to its console).
refusals_logged() {
  local address="$1" n
  shift
  n="$(cat -- "$@" 2>/dev/null | grep -F "$address" | grep -ciE 'auth|sasl')" || true
  printf '%d' "${n:-0}"
}

start_rogue() {
  ((ROGUE)) || return 0
  rogue_attempts &
  ROGUE_PID=$!
  STARTED_PIDS+=("$ROGUE_PID")
}

await_rogue() {
  ((ROGUE)) || return 0
  wait "$ROGUE_PID" || echo "netlab.sh: the rogue host's attempts did not complete; see $LAB_DIR/logs/rogue-*.log" >&2
}
