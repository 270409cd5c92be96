package org.bitopk.lab.baseline;

import java.util.Locale;
import java.util.Optional;

/**
 * How fast a measured run's first rounds went against its later ones: seconds per round of training clock up to
 * the first evaluation at or past {@code firstRounds}, and from there to the last evaluation. A system measured
 * warm has about the same pace in both; a cold one (the JIT's first compilations, Spark's and the executors'
 * first tasks) is slower in its first rounds.
 *
 * @param firstRounds the rounds of the first part (the evaluation it ends at)
 * @param firstSecondsPerRound seconds per round over them
 * @param laterRounds the rounds after them
 * @param laterSecondsPerRound seconds per round over those
 */
record RoundPace(long firstRounds, double firstSecondsPerRound, long laterRounds, double laterSecondsPerRound) {
  /** The words that start {@link #text()}, by which the table's readers find it in a row's details. */
  static final String PREFIX = "pace: first ";

  /** The pace of {@code trace} split at its first evaluation at or past {@code rounds}; empty without a later one. */
  static Optional<RoundPace> of(Trace trace, long rounds) {
    Optional<TracePoint> split = trace.points().stream().filter(p -> p.rounds() >= rounds && p.rounds() > 0)
        .findFirst();
    Optional<TracePoint> last = trace.last();
    if (split.isEmpty() || last.get().rounds() <= split.get().rounds()) {
      return Optional.empty();
    }
    TracePoint s = split.get();
    TracePoint l = last.get();
    long later = l.rounds() - s.rounds();
    return Optional.of(new RoundPace(s.rounds(), s.seconds() / s.rounds(), later, (l.seconds() - s.seconds()) / later));
  }

  /** e.g. "pace: first 40 rounds 0.075 s/round, later 240 rounds 0.072 s/round". */
  String text() {
    return String.format(Locale.ROOT, "%s%d rounds %.4f s/round, later %d rounds %.4f s/round", PREFIX, firstRounds,
        firstSecondsPerRound, laterRounds, laterSecondsPerRound);
  }
}
