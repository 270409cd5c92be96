package org.bitopk.lab.baseline;

import java.util.Locale;

/**
 * Where the training clock of {@code rounds} rounds went, in milliseconds summed over them: the workers' computing,
 * the communication that was not hidden behind it, and the rest. The three add up to those rounds' training clock.
 * What each term holds depends on the system (job/docs/time-to-accuracy.md, "Where the time goes"): for bitopk,
 * compute is the tasks' critical path (catch-up, gradient, compression), communication the rest of the Spark job
 * (scheduling, the broadcast's fetch, the reports' return, moved workers' states), rest the driver's aggregation
 * and publication and the time between rounds; for DDP, compute is rank 0's forward and backward with
 * the hooks' own work, communication the all-reduces' time after the last gradient was ready, rest the optimizer's
 * step, the minibatch and the loop.
 */
record RoundSplit(long rounds, double computeMs, double communicationMs, double restMs) {
  /** No rounds: the interval up to a trace's first point. */
  static final RoundSplit NONE = new RoundSplit(0, 0, 0, 0);

  RoundSplit {
    if (rounds < 0 || !(computeMs >= 0) || !(communicationMs >= 0) || !(restMs >= 0)) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "round split out of range: %d rounds, compute "
          + "%s ms, communication %s ms, rest %s ms", rounds, computeMs, communicationMs, restMs));
    }
  }

  /** The split of rounds whose clock was {@code wallMs}, of which compute and communication are known: the rest. */
  static RoundSplit ofWall(long rounds, double wallMs, double computeMs, double communicationMs) {
    return new RoundSplit(rounds, computeMs, communicationMs, Math.max(0, wallMs - computeMs - communicationMs));
  }

  /** The split of {@code rounds} rounds from mean milliseconds per round. */
  static RoundSplit ofMeans(long rounds, double computeMs, double communicationMs, double restMs) {
    return new RoundSplit(rounds, rounds * computeMs, rounds * communicationMs, rounds * restMs);
  }

  RoundSplit plus(RoundSplit other) {
    return new RoundSplit(rounds + other.rounds, computeMs + other.computeMs, communicationMs
        + other.communicationMs, restMs + other.restMs);
  }

  /** Mean milliseconds per round of compute, communication and rest (zeros without rounds). */
  double[] perRound() {
    return rounds == 0 ? new double[3] : new double[] {computeMs / rounds, communicationMs / rounds, restMs / rounds};
  }

  /** e.g. "per round 12.1 ms compute, 40.3 ms communication, 2.2 ms rest". */
  String text() {
    double[] m = perRound();
    return String.format(Locale.ROOT, "per round %.1f ms compute, %.1f ms communication, %.1f ms rest", m[0], m[1],
        m[2]);
  }
}
