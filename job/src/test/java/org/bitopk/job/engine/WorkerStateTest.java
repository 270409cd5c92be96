package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.bitopk.compression.CompressionStep;
import org.bitopk.compression.CompressorSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The round bookkeeping of a worker's state: which attempt of which round may use it, and the roll-back. */
class WorkerStateTest {
  private static final int D = 64;

  private static UplinkSettings uplink(float momentum, String compressor) {
    return new UplinkSettings(CompressorSpec.parse(compressor), 4, true, momentum, 7);
  }

  private static float[] gradient(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    float[] g = new float[D];
    for (int j = 0; j < D; j++) {
      g[j] = (float) random.nextGaussian();
    }
    return g;
  }

  /** One round as a task takes it: admit, step, commit; returns what was sent. */
  private static float[] round(WorkerState state, int t, long expected, long token, float[] g, float mu) {
    WorkerState.Admission admission = state.admit(t, expected);
    assertEquals(true, admission == WorkerState.Admission.CURRENT || admission == WorkerState.Admission.ROLLED_BACK,
        "admission " + admission);
    state.beginStep();
    UplinkMemory.Step step = state.memory.step(state.momentumInput(g, mu), 0.1f, state.compressor, 4);
    state.commit(t, token);
    return step.sent().toDense();
  }

  @ParameterizedTest
  @ValueSource(floats = {0f, 0.9f})
  void aSecondAttemptOfARoundRedoesItFromTheSameStartingPoint(float mu) {
    WorkerState once = WorkerState.fresh(uplink(mu, "topk"), 3, D, 0);
    WorkerState twice = WorkerState.fresh(uplink(mu, "topk"), 3, D, 0);
    long expected = WorkerState.INITIAL;
    for (int t = 0; t < 6; t++) {
      float[] g = gradient(t);
      float[] sentOnce = round(once, t, expected, 100 + t, g, mu);
      round(twice, t, expected, 200 + t, g, mu);            // attempt 0: stepped, then its task failed
      assertEquals(WorkerState.Admission.ROLLED_BACK, twice.admit(t, expected));
      twice.abortStep();                                        // no-op here: the state before round t is back
      float[] sentTwice = round(twice, t, expected, 100 + t, g, mu);  // attempt 1
      assertArrayEquals(sentOnce, sentTwice, "round " + t);
      assertArrayEquals(once.memory.memory(), twice.memory.memory(), "residual after round " + t);
      assertArrayEquals(once.velocity(), twice.velocity(), "momentum after round " + t);
      expected = 100 + t;
    }
  }

  @Test
  void staleForeignAndObsoleteStatesAreRecognised() {
    WorkerState state = WorkerState.fresh(uplink(0f, "topk"), 0, D, 0);
    assertEquals(WorkerState.Admission.UNUSABLE, state.admit(0, 5L), "fresh state, driver expects attempt 5");
    round(state, 0, WorkerState.INITIAL, 11L, gradient(1), 0f);
    round(state, 1, 11L, 12L, gradient(2), 0f);
    assertEquals(WorkerState.Admission.UNUSABLE, state.admit(3, 12L), "one round missed: stale");
    assertEquals(WorkerState.Admission.UNUSABLE, state.admit(2, 99L), "driver used another attempt's round 1");
    assertEquals(WorkerState.Admission.OBSOLETE, state.admit(1, 5L), "an attempt of a finished round");
    assertEquals(WorkerState.Admission.OBSOLETE, state.admit(0, WorkerState.INITIAL), "older still");
    assertEquals(WorkerState.Admission.CURRENT, state.admit(2, 12L));
  }

  @Test
  void randomCompressorsAreRolledBackToo() {
    WorkerState once = WorkerState.fresh(uplink(0f, "randomk"), 1, D, 0);
    WorkerState twice = WorkerState.fresh(uplink(0f, "randomk"), 1, D, 0);
    float[] g = gradient(9);
    float[] a = round(once, 0, WorkerState.INITIAL, 1, g, 0f);
    round(twice, 0, WorkerState.INITIAL, 2, g, 0f);
    float[] b = round(twice, 0, WorkerState.INITIAL, 1, g, 0f);
    assertArrayEquals(a, b, "random-k must select the same coordinates on the retry");
  }
}
