package org.bitopk.lab.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A measured run's first rounds against its later ones, worked out by hand. */
class RoundPaceTest {
  @Test
  void theFirstRoundsEndAtTheFirstEvaluationAtOrPastThemAndTheRestRunToTheLast() {
    // a cold start: 40 rounds in 12 s, then 240 rounds in 17.28 s
    Trace trace = Trace.of(List.of(new TracePoint(0, 0, 0, 0.1, 2.3), new TracePoint(40, 12, 10, 0.6, 1.2),
        new TracePoint(80, 14.88, 20, 0.7, 1.0), new TracePoint(280, 29.28, 70, 0.85, 0.5)));
    RoundPace pace = RoundPace.of(trace, 40).orElseThrow();
    assertEquals(40, pace.firstRounds());
    assertEquals(0.3, pace.firstSecondsPerRound(), 1e-12);
    assertEquals(240, pace.laterRounds());
    assertEquals(17.28 / 240, pace.laterSecondsPerRound(), 1e-12);
    assertEquals("pace: first 40 rounds 0.3000 s/round, later 240 rounds 0.0720 s/round", pace.text());
    // split at 50: the evaluation at 80 ends the first part
    RoundPace at50 = RoundPace.of(trace, 50).orElseThrow();
    assertEquals(80, at50.firstRounds());
    assertEquals(14.88 / 80, at50.firstSecondsPerRound(), 1e-12);
    assertEquals(14.4 / 200, at50.laterSecondsPerRound(), 1e-12);
  }

  @Test
  void noPaceWithoutAnEvaluationAfterTheFirstRounds() {
    Trace one = Trace.of(List.of(new TracePoint(0, 0, 0, 0.1, 2.3), new TracePoint(40, 3, 10, 0.86, 0.5)));
    assertTrue(RoundPace.of(one, 40).isEmpty());
    assertTrue(RoundPace.of(Trace.empty(), 40).isEmpty());
    assertTrue(RoundPace.of(one, 100).isEmpty());
  }
}
