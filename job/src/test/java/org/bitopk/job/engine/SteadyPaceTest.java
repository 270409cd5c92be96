package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** SteadyPace against the definition evaluated window by window, by sorting each one afresh. */
class SteadyPaceTest {

  /** The definition in SteadyPace's description, computed the slow way: every candidate round's window sorted. */
  private static SteadyPace bruteForce(double[] times) {
    int n = times.length;
    double[] all = times.clone();
    Arrays.sort(all);
    double pace = all[n / 2];
    double sum = Arrays.stream(times).sum();
    for (int t = 0; t < n; t++) {
      double[] w = Arrays.copyOfRange(times, t, Math.min(t + 10, n));
      Arrays.sort(w);
      if (times[t] <= 1.2 * pace && w[w.length / 2] <= 1.2 * pace) {
        return new SteadyPace(n, pace, t, Arrays.stream(times, 0, t).sum(), sum);
      }
    }
    throw new AssertionError("no steady round in " + Arrays.toString(times));
  }

  private static void assertAgrees(double[] times) {
    SteadyPace expected = bruteForce(times);
    SteadyPace actual = SteadyPace.of(times, times.length);
    assertEquals(expected.rounds(), actual.rounds());
    assertEquals(expected.steadyPaceMs(), actual.steadyPaceMs());
    assertEquals(expected.roundsToSteadyPace(), actual.roundsToSteadyPace(), () -> Arrays.toString(times));
    assertEquals(expected.warmUpMs(), actual.warmUpMs(), 1e-9 * expected.roundTimeSumMs());
    assertEquals(expected.roundTimeSumMs(), actual.roundTimeSumMs(), 1e-9 * expected.roundTimeSumMs());
  }

  @Test
  void agreesWithTheDefinitionOnDecayingNoisyRuns() {
    Random random = new Random(40);
    for (int run = 0; run < 400; run++) {
      int n = 1 + random.nextInt(run < 100 ? 30 : 600);
      double steady = 5 + 30 * random.nextDouble();
      double warm = 1 + 8 * random.nextDouble();
      double decay = 1 + random.nextInt(300);
      double[] times = new double[n];
      for (int t = 0; t < n; t++) {
        times[t] = steady * (1 + warm * Math.exp(-t / decay)) * (0.8 + 0.5 * random.nextDouble())
            + (random.nextInt(40) == 0 ? 20 * steady : 0);   // a garbage collection now and then
      }
      assertAgrees(times);
    }
  }

  @Test
  void agreesWithTheDefinitionWhenTimesRepeat() {
    Random random = new Random(7);
    for (int run = 0; run < 300; run++) {
      double[] times = new double[1 + random.nextInt(80)];
      for (int t = 0; t < times.length; t++) {
        // 10, 12, 14, 16 ms, or 10 and 100 ms alternating in places: ties inside every window, fast rounds whose
        // windows are slow
        times[t] = run % 2 == 0 ? 10 + random.nextInt(4) * 2 : (t % 2 == 0 || random.nextInt(3) == 0 ? 10 : 100);
      }
      assertAgrees(times);
    }
  }

  @Test
  void aStepWarmUpEndsAtTheFirstFastRoundAndALuckyRoundDoesNotCount() {
    double[] times = new double[200];
    Arrays.fill(times, 0, 30, 100);
    Arrays.fill(times, 30, 200, 10);
    times[12] = 10;   // one fast round among the slow ones: its window is slow
    SteadyPace pace = SteadyPace.of(times, times.length);
    assertEquals(10, pace.steadyPaceMs());
    assertEquals(30, pace.roundsToSteadyPace());
    assertEquals(29 * 100 + 10, pace.warmUpMs());
    assertEquals(29 * 100 + 171 * 10, pace.roundTimeSumMs());
    assertEquals((29 * 100 + 171 * 10) / 2000.0, pace.roundTimeSumRatio(), 1e-12);
  }

  @Test
  void countsOnlyTheRoundsRun() {
    double[] times = {50, 40, 10, 10, 10, 0, 0, 0};   // the last three were never run
    SteadyPace pace = SteadyPace.of(times, 5);
    assertEquals(5, pace.rounds());
    assertEquals(10, pace.steadyPaceMs());
    assertEquals(2, pace.roundsToSteadyPace());
    assertEquals(120, pace.roundTimeSumMs());
    assertEquals(0, SteadyPace.of(times, 0).rounds());
  }
}
