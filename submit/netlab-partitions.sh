#!/usr/bin/env bash
# The partition experiment on the network lab: the same training run undisturbed and with one worker host cut
# off for each given number of seconds from a given round, one lab per run, then one table of what each
# partition did to the run. Needs root, as netlab.sh does. See submit/README.md ("Partitions").
#   sudo submit/netlab-partitions.sh --out runs/partitions --lengths none,30,80,150
set -euo pipefail
BITOPK_COMMON="${BASH_SOURCE[0]%/*}/common.sh"
[[ "${BASH_SOURCE[0]}" == */* ]] || BITOPK_COMMON=common.sh
[[ -f "$BITOPK_COMMON" ]] \
  || { echo "netlab-partitions.sh: error: $BITOPK_COMMON not found (keep the submit/ scripts together)" >&2; exit 2; }
source "$BITOPK_COMMON"
locate_repo "${BASH_SOURCE[0]}"

usage() {
  print_text <<HELP
Usage: $BITOPK_SCRIPT_NAME [options] [-- extra train arguments...]

Runs, each on a fresh network lab (submit/netlab.sh, 2 worker hosts at --rate), the bidirectional
Fashion-MNIST MLP at P = 4 in 2 tasks, batch 32: undisturbed, and with one worker host's link down for each
length from a given round on. Then writes partitions.txt and partitions.json into the output directory: per
run the round that waited and its seconds, when Spark declared the host's executor lost and why, when that
round ended, lost residuals, replica resyncs, final accuracy against the undisturbed run, the rounds run after
the host came back and whether it got work again. A length whose lab directory already holds netlab.json is
not run again, so the lengths can be taken in separate invocations into one table.

Options:
  --out DIR          the experiment's directory (default runs/partitions); one lab directory per length in it:
                     none, down-30, ...
  --lengths LIST     comma-separated partition lengths in seconds, none for the undisturbed run
                     (default none,30,80,150)
  --round N          the link goes down once the run has completed N rounds (default 9)
  --host H           the worker host cut off (default 2)
  --rate R           every link's rate (default 1gbit)
  --rounds N         rounds of training (default 2808: six epochs, which on an idle machine outlast a
                     150 s partition, so the table sees the host come back)
  --conf KEY=VALUE   one more Spark setting for every run (repeatable), passed to netlab.sh; BENCHMARKS.md's
                     partitions ran with spark.locality.wait.process=10min
  -h, --help         this help
HELP
}

OUT=runs/partitions
LENGTHS=none,30,80,150
ROUND=9
HOST=2
RATE=1gbit
ROUNDS=2808
EXTRA=()
CONF=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --out) require_value "$@"; OUT="$2"; shift 2 ;;
    --lengths) require_value "$@"; LENGTHS="$2"; shift 2 ;;
    --round) require_value "$@"; [[ "$2" =~ ^[0-9]+$ ]] || die "option --round must be a whole number, got '$2'"
             ROUND="$2"; shift 2 ;;
    --host) require_value "$@"; [[ "$2" =~ ^[12]$ ]] || die "option --host must be 1 or 2 (a worker host), got '$2'"
            HOST="$2"; shift 2 ;;
    --rate) require_value "$@"; RATE="$2"; shift 2 ;;
    --rounds) require_value "$@"; require_positive_int "$1" "$2"; ROUNDS="$2"; shift 2 ;;
    --conf) require_value "$@"; require_setting "$@"; CONF+=(--conf "$2"); shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done
IFS=, read -r -a LENGTH_LIST <<< "$LENGTHS"
for length in "${LENGTH_LIST[@]}"; do
  [[ "$length" == none || "$length" =~ ^[1-9][0-9]*$ ]] \
    || die "option --lengths: '$length' is neither none nor a number of seconds"
done
(( ROUND < ROUNDS )) || die "option --round $ROUND: the run has only $ROUNDS rounds (--rounds)"

# Epochs enough for ROUNDS (468 rounds each: 60,000 examples in minibatches of 32 on 4 workers); the run stops at
# ROUNDS.
EPOCHS=$(( (ROUNDS + 467) / 468 ))
mkdir -p "$OUT" || die "--out $OUT: cannot create the directory"
for length in "${LENGTH_LIST[@]}"; do
  lab="$OUT/down-$length"
  fault=(--fault "$HOST:r$ROUND:down=$length")
  if [[ "$length" == none ]]; then lab="$OUT/none"; fault=(); fi
  if [[ -f "$lab/netlab.json" ]]; then
    echo "netlab-partitions.sh: $lab already holds a finished run; kept" >&2
    continue
  fi
  [[ ! -e "$lab" ]] || die "$lab exists but holds no netlab.json (an interrupted run): remove it to run that length again"
  echo "netlab-partitions.sh: partition ${length}: $lab" >&2
  "$BITOPK_SUBMIT_DIR/netlab.sh" --hosts 2 --rate "$RATE" --time-limit $(( ${length/none/0} + 900 )) \
    --lab-dir "$lab" "${fault[@]}" "${CONF[@]}" -- \
    train --workers 4 --tasks 2 --mode bidirectional --batch-size 32 --epochs "$EPOCHS" --max-iterations "$ROUNDS" \
    --quiet \
    --output "$lab/run" "${EXTRA[@]}" \
    || die "the run with partition $length failed; its logs are in $lab/logs" 1
done

ROOT="$(cd "$BITOPK_REPO" && pwd)"
CP="${BITOPK_CLASSPATH:-$ROOT/job/target/classes:$(< "$ROOT/job/target/classpath.txt")}"
java -Xmx256m -cp "$CP" org.bitopk.lab.network.PartitionTable "$OUT"
