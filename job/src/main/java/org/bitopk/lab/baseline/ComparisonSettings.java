package org.bitopk.lab.baseline;

import org.jspecify.annotations.Nullable;

/**
 * What every compared system shares: data, P workers with a minibatch each per round, SGD's learning rate, the
 * seed of the initial parameters, how often the test set is evaluated and how long a system may train.
 *
 * @param dataset the job's data set text ({@code fashion-mnist}, {@code synthetic:...})
 * @param dataPath its directory, or null for the default location
 * @param density bitopk's ρ, up and down
 * @param evalEvery rounds between evaluations
 * @param maxSeconds training clock after which a system stops (at its next evaluation)
 * @param epochs passes over the training set after which a system stops
 * @param maxRounds rounds after which a system stops (at its next evaluation)
 * @param stopAtTarget whether a system stops at the first evaluation that reaches the target (the learning-rate
 *     grid needs no more of it)
 */
public record ComparisonSettings(String dataset, @Nullable String dataPath, int workers, int batchSize,
    double learningRate, double density, long seed, int evalEvery, double maxSeconds, int epochs, double target,
    long maxRounds, boolean stopAtTarget) {
  public ComparisonSettings(String dataset, @Nullable String dataPath, int workers, int batchSize, double learningRate,
      double density, long seed, int evalEvery, double maxSeconds, int epochs, double target) {
    this(dataset, dataPath, workers, batchSize, learningRate, density, seed, evalEvery, maxSeconds, epochs, target,
        Long.MAX_VALUE, false);
  }

  public ComparisonSettings {
    require(workers >= 1, "--workers", workers, ">= 1");
    require(batchSize >= 1, "--batch-size", batchSize, ">= 1");
    require(learningRate > 0 && Double.isFinite(learningRate), "--lr", learningRate, "> 0");
    require(density > 0 && density <= 1, "--density", density, "in (0, 1]");
    require(evalEvery >= 1, "--eval-every", evalEvery, ">= 1");
    require(maxSeconds > 0 && Double.isFinite(maxSeconds), "--max-seconds", maxSeconds, "> 0");
    require(epochs >= 1, "--epochs", epochs, ">= 1");
    require(target > 0 && target <= 1, "--target", target, "in (0, 1]");
    require(maxRounds >= 1, "--grid-rounds", maxRounds, ">= 1");
  }

  /** Past the training clock's or the rounds' budget: evaluate now and stop. */
  boolean pastBudget(double seconds, long rounds) {
    return seconds >= maxSeconds || rounds >= maxRounds;
  }

  /** Whether a system stops after an evaluation at {@code seconds} and {@code rounds} that found {@code accuracy}. */
  boolean done(double seconds, long rounds, double accuracy) {
    return pastBudget(seconds, rounds) || (stopAtTarget && accuracy >= target);
  }

  /** The same comparison with a training-clock budget of {@code seconds} (one system's own). */
  ComparisonSettings withMaxSeconds(double seconds) {
    return new ComparisonSettings(dataset, dataPath, workers, batchSize, learningRate, density, seed, evalEvery,
        seconds, epochs, target, maxRounds, stopAtTarget);
  }

  /** The same comparison at another learning rate (each system's own, chosen from a grid). */
  ComparisonSettings withLearningRate(double lr) {
    return new ComparisonSettings(dataset, dataPath, workers, batchSize, lr, density, seed, evalEvery, maxSeconds,
        epochs, target, maxRounds, stopAtTarget);
  }

  /**
   * The learning-rate grid's settings: at most {@code rounds} rounds, stopping at the target, no clock budget
   * (rounds to the target do not depend on the machine's load).
   */
  ComparisonSettings forGrid(long rounds) {
    return new ComparisonSettings(dataset, dataPath, workers, batchSize, learningRate, density, seed, evalEvery,
        Double.MAX_VALUE, epochs, target, rounds, true);
  }

  /**
   * The same comparison, each system stopping at its first evaluation that reaches the target ({@code
   * --stop-at-target}): its time to the target is then measured and the rest of its budget not spent.
   */
  ComparisonSettings stoppingAtTarget() {
    return new ComparisonSettings(dataset, dataPath, workers, batchSize, learningRate, density, seed, evalEvery,
        maxSeconds, epochs, target, maxRounds, true);
  }

  /**
   * A warm-up of {@code rounds} rounds ({@code --warm-up-rounds}, {@link WarmedUpSystem}), not stopping at the
   * target, so every system warms up for the same number of rounds whatever its speed; within the system's own
   * clock budget, so that one far slower than the rest (a master that takes seconds a round) costs no more there
   * than it may measured.
   */
  ComparisonSettings forWarmUp(long rounds) {
    return new ComparisonSettings(dataset, dataPath, workers, batchSize, learningRate, density, seed, evalEvery,
        maxSeconds, epochs, target, rounds, false);
  }

  /**
   * The same comparison with another training budget: what a warm-up run gets ({@link WarmedUpSystem}), one
   * epoch at most and {@code seconds} of training clock.
   */
  ComparisonSettings withBudget(double seconds, int maxEpochs) {
    return new ComparisonSettings(dataset, dataPath, workers, batchSize, learningRate, density, seed, evalEvery,
        seconds, maxEpochs, target, maxRounds, false);
  }

  private static void require(boolean ok, String flag, Object value, String expected) {
    if (!ok) {
      throw new IllegalArgumentException(flag + ": expected " + expected + ", got " + value);
    }
  }
}
