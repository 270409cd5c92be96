#!/usr/bin/env bash
# The round cost model on the network lab: the synthetic-gradient problem on 4 worker hosts (one core each) at
# each point RATE:MODE:P, one fresh lab per point (submit/netlab.sh), then RoundCostReport's lab report: each
# round split into compute, uplink transfer, driver, broadcast fan-out and the rest, the bytes leaving the
# driver's link per round, and the model fitted on some points and checked on the others. Needs root.
#   job/bench/scale-lab.sh OUT_DIR [--points RATE:MODE:P[:TASKS],...] [--dimension D] [--density RHO] [--hosts N]
#   job/bench/scale-lab.sh OUT_DIR --report A_NS_PER_COORDINATE B_NS_PER_ELEMENT C_MS
# A point whose lab directory already holds netlab.json is kept, so the points can be run a few at a time.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
die() { echo "scale-lab.sh: $1" >&2; exit "${2:-2}"; }
OUT="${1:?usage: job/bench/scale-lab.sh OUT_DIR [--points LIST] [--dimension D] [--density RHO] | --report A B C}"
shift
# The default grid: bidirectional at P = 4 … 64 at 100 Mbit/s, at P = 4, 16, 64 at 1 Gbit/s, one task per worker
# at two points (TASKS; otherwise Spark's default, one task per executor), and the other schemes at one or two
# points of each rate (the model's other terms: the union down, dense both ways).
POINTS=100mbit:bi:4,100mbit:bi:16,100mbit:bi:64,100mbit:dense:4,100mbit:bi:8,100mbit:bi:32,100mbit:uni:16
POINTS+=,100mbit:uni:64,100mbit:bi:16:16,1gbit:bi:4,1gbit:bi:16,1gbit:bi:64,1gbit:uni:16,1gbit:dense:4
POINTS+=,1gbit:bi:32:32
DIMENSION=1000000
DENSITY=0.01
HOSTS=4
REPORT=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --points) POINTS="${2:?--points needs a list}"; shift 2 ;;
    --dimension) DIMENSION="${2:?--dimension needs a number}"; shift 2 ;;
    --density) DENSITY="${2:?--density needs a number}"; shift 2 ;;
    --hosts) HOSTS="${2:?--hosts needs a number}"; shift 2 ;;
    --report) [[ $# -ge 4 ]] || die "--report needs the driver's a (ns), b (ns) and c (ms)"
              REPORT=("$2" "$3" "$4"); shift 4 ;;
    *) die "unknown option $1" ;;
  esac
done

if [[ ${#REPORT[@]} -eq 0 ]]; then
  mkdir -p "$OUT" || die "$OUT: cannot create the directory"
  IFS=, read -r -a LIST <<< "$POINTS"
  for point in "${LIST[@]}"; do
    [[ "$point" =~ ^([0-9]+[kmg]bit|none):(bi|uni|dense):([1-9][0-9]*)(:[1-9][0-9]*)?$ ]] \
      || die "--points: '$point' is not RATE:MODE:P[:TASKS] (e.g. 100mbit:bi:16; MODE bi, uni or dense)"
  done
  for point in "${LIST[@]}"; do
    IFS=: read -r rate mode workers tasks <<< "$point"
    lab="$OUT/$rate-$mode-p$workers${tasks:+-t$tasks}"
    if [[ -f "$lab/netlab.json" ]]; then echo "scale-lab.sh: $lab already measured; kept" >&2; continue; fi
    [[ ! -e "$lab" ]] || die "$lab exists without netlab.json (an interrupted point): remove it to run it again"
    # the counters are read every 0.5 s: 30 rounds (12 of the dense, seconds long) keep the window's ends within
    # a few per cent of the bytes per round
    rounds=30
    case "$mode" in
      bi) scheme=(--mode bidirectional --density-up "$DENSITY" --density-down "$DENSITY") ;;
      uni) scheme=(--mode unidirectional --density-up "$DENSITY") ;;
      dense) scheme=(--mode dense); rounds=12 ;;
    esac
    echo "scale-lab.sh: $point ($rounds rounds): $lab" >&2
    submit/netlab.sh --hosts "$HOSTS" --rate "$rate" --memory 1500m --driver-memory 2g --time-limit 900 \
      --lab-dir "$lab" -- train --dataset "synthetic-gradients:d=$DIMENSION" --workers "$workers" "${scheme[@]}" \
      ${tasks:+--tasks "$tasks"} --epochs "$rounds" --seed 1 --quiet --output "$lab/run" \
      || die "the point $point failed; its logs are in $lab/logs" 1
  done
  exit 0
fi

mvn -B -q -o -pl job -am test-compile dependency:build-classpath -Dmdep.outputFile=target/test-classpath.txt \
    -Dmdep.includeScope=test
java -cp "job/target/test-classes:job/target/classes:$(cat job/target/test-classpath.txt)" \
    org.bitopk.job.bench.RoundCostReport --lab "$OUT" "${REPORT[@]}" | tee "$OUT/report.txt"
