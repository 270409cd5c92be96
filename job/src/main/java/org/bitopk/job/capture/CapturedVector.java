package org.bitopk.job.capture;

/**
 * One worker's compensated vector c_i = e_i + lr·g_i of one round, the input of its uplink compressor, with what
 * the run knew about it: the round, the worker, the number of workers, the round's learning rate and the uplink's
 * density and target k. Immutable: the values are copied in and out.
 */
public final class CapturedVector {
  private final int round;
  private final int worker;
  private final int workers;
  private final float learningRate;
  private final double density;
  private final int targetK;
  private final float[] values;

  private CapturedVector(int round, int worker, int workers, float learningRate, double density, int targetK,
      float[] values) {
    this.round = round;
    this.worker = worker;
    this.workers = workers;
    this.learningRate = learningRate;
    this.density = density;
    this.targetK = targetK;
    this.values = values;
  }

  /**
   * Validating factory.
   *
   * @param round 1-based round, at least 1
   * @param worker 0-based worker id, below {@code workers}
   * @param learningRate the round's learning rate, finite and positive
   * @param density the run's uplink density, in (0, 1]
   * @param targetK the run's uplink k, in [1, d]
   * @param values c_i (copied), non-empty and finite
   */
  public static CapturedVector of(int round, int worker, int workers, float learningRate, double density,
      int targetK, float[] values) {
    if (values == null || values.length == 0) {
      throw new IllegalArgumentException("a captured vector needs at least one value");
    }
    return trusted(round, worker, workers, learningRate, density, targetK, values.clone());
  }

  /** As {@link #of} without copying {@code values} (the caller hands them over). */
  static CapturedVector trusted(int round, int worker, int workers, float learningRate, double density,
      int targetK, float[] values) {
    String problem = null;
    if (round < 1) {
      problem = "round " + round + " (expected >= 1)";
    } else if (workers < 1 || worker < 0 || worker >= workers) {
      problem = "worker " + worker + " of " + workers + " (expected 0 <= worker < workers)";
    } else if (!(learningRate > 0 && Float.isFinite(learningRate))) {
      problem = "learning rate " + learningRate + " (expected a finite positive number)";
    } else if (!(density > 0 && density <= 1)) {
      problem = "density " + density + " (expected a value in (0, 1])";
    } else if (values.length == 0 || targetK < 1 || targetK > values.length) {
      problem = "target k " + targetK + " for d = " + values.length + " (expected 1 <= k <= d)";
    } else {
      for (int j = 0; j < values.length; j++) {
        if (!Float.isFinite(values[j])) {
          problem = "value " + values[j] + " at index " + j + " (expected finite values)";
          break;
        }
      }
    }
    if (problem != null) {
      throw new IllegalArgumentException("invalid captured vector: " + problem);
    }
    return new CapturedVector(round, worker, workers, learningRate, density, targetK, values);
  }

  public int round() { return round; }
  public int worker() { return worker; }
  public int workers() { return workers; }
  public float learningRate() { return learningRate; }
  public double density() { return density; }
  public int targetK() { return targetK; }
  /** d, the model's dimension. */
  public int dimension() { return values.length; }

  /** c_i (a copy). */
  public float[] values() {
    return values.clone();
  }

  /** The shared array, for readers in this package that do not modify it. */
  public float[] valuesUnsafe() {
    return values;
  }
}
