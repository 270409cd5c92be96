#!/usr/bin/env bash
# Cold start of a local run (job/docs/cold-start.md): each variant runs submit/run-local.sh in a fresh JVM, the
# variants alternated REPEAT times, and the figures come from each run's metrics/iterations.jsonl and summary.txt.
#   job/bench/cold-start.sh [OUT_DIR=runs/cold-start] [REPEAT=2] [NAME=JAVA_OPTS ...] [-- train flags]
# e.g. job/bench/cold-start.sh runs/cs 2 base= c2sooner=-XX:CompileThresholdScaling=0.1 -- --max-iterations 300
# Variants run with run-local.sh's class-data archive (BITOPK_CDS=on) unless their JAVA_OPTS start with
# BITOPK_CDS=off: nocds='BITOPK_CDS=off'. Without variants: the
# default run-local.sh alone. One line per run: variant, rounds, steady pace (median ms), rounds to steady pace,
# sum of round times / (rounds x steady pace), median of rounds 10-50 / steady pace, medians of rounds 0-10 and
# 10-50 (ms), seconds from the command to its exit.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
OUT="${1:-runs/cold-start}"
REPEAT="${2:-2}"
shift $(( $# < 2 ? $# : 2 ))
VARIANTS=()
while [[ $# -gt 0 && "$1" != -- ]]; do
  VARIANTS+=("$1")
  shift
done
[[ "${1:-}" != -- ]] || shift
[[ ${#VARIANTS[@]} -gt 0 ]] || VARIANTS=(default=)
mkdir -p "$OUT"
# Builds once, and the class-data archive with a short run (a build step, as after any build: job/docs/cold-start.md).
archive_start=$(date +%s.%N)
BITOPK_CDS=on submit/run-local.sh --max-iterations 5 --output "$OUT/archive-run" --overwrite \
    >"$OUT/archive-run.log" 2>&1
echo "build and archive run: $(awk -v a="$archive_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"

figures() {   # figures RUN_DIR: the columns after the variant's name
  jq -rs '[.[].time_total_ms] as $t | ($t | length) as $n | ($t | sort | .[$n / 2 | floor]) as $pace
    | def med(a; b): ($t[a:b] | sort | .[length / 2 | floor]);
    def r(p): . * p | round / p;
    "\($n) \($pace | r(10)) \(($t | add) / ($n * $pace) | r(100)) \(med(10; 50) / $pace | r(100))"
    + " \(med(0; 10) | r(10)) \(med(10; 50) | r(10))"' \
    "$1/metrics/iterations.jsonl"
}

printf '%-12s %6s %8s %9s %9s %9s %8s %8s %7s\n' variant rounds steady_ms to_steady sum/steady r10-50/st \
    r0-10ms r10-50ms wall_s
for ((i = 1; i <= REPEAT; i++)); do
  for variant in "${VARIANTS[@]}"; do
    name="${variant%%=*}" opts="${variant#*=}" cds=on
    if [[ "$opts" == BITOPK_CDS=off* ]]; then
      cds=off opts="${opts#BITOPK_CDS=off}"
    fi
    dir="$OUT/$name-$i"
    rm -rf "$dir"
    start=$(date +%s.%N)
    BITOPK_CDS="$cds" JAVA_OPTS="$opts" submit/run-local.sh --output "$dir" "$@" >"$OUT/$name-$i.log" 2>&1
    end=$(date +%s.%N)
    read -r rounds pace ratio early r0 r10 <<<"$(figures "$dir")"
    steady="$(sed -n 's/.*steady pace from round \([0-9,]*\).*/\1/p' "$dir/summary.txt")"
    printf '%-12s %6s %8s %9s %9s %9s %8s %8s %7.1f\n' "$name" "$rounds" "$pace" "$steady" "$ratio" "$early" \
        "$r0" "$r10" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
  done
done
