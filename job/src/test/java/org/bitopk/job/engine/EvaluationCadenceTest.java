package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which rounds evaluate the test set: epoch ends as --eval-every says, and inside the epochs of a short run. */
class EvaluationCadenceTest {

  /** Evaluations of a run: the rounds inside epochs, counted one by one, plus every epoch end (eval-every 1). */
  private static int evaluations(long total, int perEpoch) {
    RunPlan plan = plan(total, perEpoch, EvaluationCadence.roundsBetween(1, total, perEpoch));
    int n = 0;
    for (long t = 0; t < total; t++) {
      boolean end = (t + 1) % perEpoch == 0 || t + 1 == total;
      assertTrue(!(end && plan.evaluatesWithinEpochAfter(t)), "round " + t + " ends an epoch: evaluated there once");
      n += end || plan.evaluatesWithinEpochAfter(t) ? 1 : 0;
    }
    return n;
  }

  /** The default run: Fashion-MNIST's 60,000 examples on 4 workers of batch 32, one epoch. */
  @Test
  void theDefaultRunDrawsItsAccuracyAsACurve() {
    int perEpoch = 60_000 / (4 * 32);
    int evaluations = evaluations(perEpoch, perEpoch);
    assertTrue(evaluations >= 5, evaluations + " evaluations");
    assertEquals(perEpoch / 10, EvaluationCadence.roundsBetween(1, perEpoch, perEpoch));
  }

  @ParameterizedTest(name = "{0} rounds of {1} per epoch")
  @CsvSource({"100, 100", "250, 100", "300, 60", "499, 100", "1000, 250"})
  void everyShortRunOfAHundredRoundsOrMoreGetsAtLeastFivePoints(long total, int perEpoch) {
    assertTrue(evaluations(total, perEpoch) >= 5, total + " rounds");
  }

  @Test
  void longRunsOtherCadencesAndVeryShortRunsGetNone() {
    assertEquals(0, EvaluationCadence.roundsBetween(1, 500, 100), "5 epochs draw 5 points already");
    assertEquals(0, EvaluationCadence.roundsBetween(2, 468, 468), "--eval-every 2 asks for fewer evaluations");
    assertEquals(0, EvaluationCadence.roundsBetween(1, 99, 99), "fewer than 10 rounds apart");
    assertEquals(10, EvaluationCadence.roundsBetween(1, 100, 100));
    assertEquals(evaluations(99, 99), 1);
  }

  @Test
  void aPlanWithoutTheCadenceEvaluatesAtEpochEndsOnly() {
    RunPlan plan = plan(468, 468, 0);
    for (long t = 0; t < 468; t++) {
      assertTrue(!plan.evaluatesWithinEpochAfter(t), "round " + t);
    }
  }

  private static RunPlan plan(long total, int perEpoch, int between) {
    return RunPlan.builder().mode("bidirectional").workers(1).tasks(1).rounds(total, perEpoch)
        .uplink(new UplinkSettings(org.bitopk.compression.CompressorSpec.parse("topk"), 1, true, 0f, 1))
        .downlink(DownlinkStrategies.average()).learningRate(0.1, 1).roundsBetweenEvaluations(between).build();
  }
}
