package org.bitopk.job.engine;

/**
 * When a run evaluates the test set between epoch ends. A run of fewer than {@value #SHORT_RUN_EPOCHS} epochs that
 * evaluates every epoch would draw its accuracy as one to four points; it also evaluates after every tenth of its
 * rounds, so that its report shows a curve. Not when that is fewer than {@value #MIN_ROUNDS_BETWEEN} rounds apart:
 * each evaluation is a pass over the whole test set (10,000 images for Fashion-MNIST), and a run that short is a
 * check, not a curve. Evaluation reads the model and changes nothing of the training.
 */
public final class EvaluationCadence {
  /** Runs of this many epochs or more get their curve from the epoch ends. */
  static final int SHORT_RUN_EPOCHS = 5;
  /** Evaluations spread over a short run, besides its epoch ends. */
  static final int EVALUATIONS = 10;
  static final int MIN_ROUNDS_BETWEEN = 10;

  private EvaluationCadence() {}

  /**
   * Rounds between evaluations inside epochs, 0 for none.
   *
   * @param evalEvery the run's --eval-every (epochs): only a run that evaluates every epoch gets more
   */
  public static int roundsBetween(int evalEvery, long totalRounds, int roundsPerEpoch) {
    if (evalEvery != 1 || totalRounds >= (long) SHORT_RUN_EPOCHS * roundsPerEpoch) {
      return 0;
    }
    long between = totalRounds / EVALUATIONS;
    return between < MIN_ROUNDS_BETWEEN ? 0 : Math.toIntExact(between);
  }
}
