package org.bitopk.lab.baseline;

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
 */
public record ComparisonSettings(String dataset, String dataPath, int workers, int batchSize, double learningRate,
    double density, long seed, int evalEvery, double maxSeconds, int epochs, double target) {
  public ComparisonSettings {
    require(workers >= 1, "--workers", workers, ">= 1");
    require(batchSize >= 1, "--batch-size", batchSize, ">= 1");
    require(learningRate > 0 && Double.isFinite(learningRate), "--lr", learningRate, "> 0");
    require(density > 0 && density <= 1, "--density", density, "in (0, 1]");
    require(evalEvery >= 1, "--eval-every", evalEvery, ">= 1");
    require(maxSeconds > 0 && Double.isFinite(maxSeconds), "--max-seconds", maxSeconds, "> 0");
    require(epochs >= 1, "--epochs", epochs, ">= 1");
    require(target > 0 && target <= 1, "--target", target, "in (0, 1]");
  }

  /**
   * The same comparison with another training budget: what a warm-up run gets ({@link WarmedUpSystem}), one
   * epoch at most and {@code seconds} of training clock.
   */
  ComparisonSettings withBudget(double seconds, int maxEpochs) {
    return new ComparisonSettings(dataset, dataPath, workers, batchSize, learningRate, density, seed, evalEvery,
        seconds, maxEpochs, target);
  }

  private static void require(boolean ok, String flag, Object value, String expected) {
    if (!ok) {
      throw new IllegalArgumentException(flag + ": expected " + expected + ", got " + value);
    }
  }
}
