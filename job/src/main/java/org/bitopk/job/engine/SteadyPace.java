package org.bitopk.job.engine;

import java.util.Arrays;

/**
 * How soon a run reached its steady pace, from its rounds' times ({@code time_total_ms}, in the order they ran).
 *
 * <p>The steady pace is the run's median round time (the upper median: the {@code n/2}-th of the sorted times,
 * 0-based). The run reaches it at the first round t whose own time is at most {@value #TOLERANCE}× the steady
 * pace and so is the (upper) median of the {@value #WINDOW} rounds t..t+{@value #WINDOW}−1 (to the run's last round,
 * when fewer remain): the window keeps one lucky round among slow ones from counting. The rounds before t are the
 * warm-up; {@code warmUpMs} is their summed time. Such a round always exists: the rounds within the tolerance are
 * a strict majority (all those up to the median), and if each of them began a window without a majority of them,
 * those windows laid end to end from the first one, with the slow rounds between, would make them at most half.
 *
 * @param rounds the rounds timed (this invocation's, from its first round)
 * @param steadyPaceMs the median round time
 * @param roundsToSteadyPace rounds before the steady pace (0: steady from the first round)
 * @param warmUpMs the summed time of those rounds
 * @param roundTimeSumMs the summed time of all rounds
 */
public record SteadyPace(int rounds, double steadyPaceMs, int roundsToSteadyPace, double warmUpMs,
    double roundTimeSumMs) {

  /** Rounds whose median is compared with the steady pace. */
  public static final int WINDOW = 10;
  /** How far above the steady pace a window may be and still count as steady. */
  public static final double TOLERANCE = 1.2;

  /** Of the first {@code rounds} entries of {@code roundMs}. */
  public static SteadyPace of(double[] roundMs, int rounds) {
    if (rounds < 0 || rounds > roundMs.length) {
      throw new IllegalArgumentException("rounds " + rounds + " of " + roundMs.length + " round times");
    }
    if (rounds == 0) {
      return new SteadyPace(0, 0, 0, 0, 0);
    }
    double[] sorted = Arrays.copyOf(roundMs, rounds);
    Arrays.sort(sorted);
    double pace = sorted[rounds / 2];
    double sum = 0;
    for (int t = 0; t < rounds; t++) {
      sum += roundMs[t];
    }
    // The window's times kept sorted while it slides: one removal, and one insertion until it reaches the end.
    double[] window = Arrays.copyOf(roundMs, Math.min(WINDOW, rounds));
    Arrays.sort(window);
    int size = window.length;
    double warmUp = 0;
    for (int t = 0; t < rounds; t++) {
      if (roundMs[t] <= TOLERANCE * pace && window[size / 2] <= TOLERANCE * pace) {
        return new SteadyPace(rounds, pace, t, warmUp, sum);
      }
      warmUp += roundMs[t];
      int at = remove(window, size, roundMs[t]);
      size--;
      if (t + WINDOW < rounds) {
        insert(window, size, at, roundMs[t + WINDOW]);
        size++;
      }
    }
    throw new IllegalStateException("no round within " + TOLERANCE + "x of the median " + pace + " ms");
  }

  /** Removes one {@code value} from the first {@code size} (sorted) entries; returns where it was. */
  private static int remove(double[] sorted, int size, double value) {
    int at = Arrays.binarySearch(sorted, 0, size, value);
    System.arraycopy(sorted, at + 1, sorted, at, size - at - 1);
    return at;
  }

  /** Inserts {@code value} into the first {@code size} (sorted) entries, searching from {@code from}. */
  private static void insert(double[] sorted, int size, int from, double value) {
    int at = Math.min(from, size);
    while (at < size && sorted[at] < value) {
      at++;
    }
    while (at > 0 && sorted[at - 1] > value) {
      at--;
    }
    System.arraycopy(sorted, at, sorted, at + 1, size - at);
    sorted[at] = value;
  }

  /** The summed round times against rounds × steady pace (1: no warm-up cost at all). */
  public double roundTimeSumRatio() {
    return steadyPaceMs == 0 ? 1 : roundTimeSumMs / (rounds * steadyPaceMs);
  }
}
