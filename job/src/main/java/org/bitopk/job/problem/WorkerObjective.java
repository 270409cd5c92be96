package org.bitopk.job.problem;

/**
 * One executor-side model replica that computes a worker's gradient at the replica's current parameters.
 *
 * <p>The caller owns the canonical parameter vector (a {@code float[]} moved only by
 * {@link org.bitopk.job.engine.SparseUpdates}) and tells the objective which coordinates changed, so that an
 * implementation backed by a native network copies only the touched entries. Not thread-safe: one instance
 * per concurrently running task.
 *
 * @param <S> the per-worker data (a shard of images, or a quadratic's centre)
 */
public interface WorkerObjective<S> extends AutoCloseable {
  /** Number of parameters d. */
  int dimension();

  /**
   * x_0 as this new replica builds it from the run's seed and model configuration — the driver's
   * {@link TrainingProblem#initialParameters()} computed again here — or empty when it cannot. Asked only before
   * the first {@link #load}; the engine keeps it only when its checksum is the driver's, so a replica that builds
   * other bits (another numeric library, a file it reads differently) loads the driver's snapshot instead.
   */
  default java.util.Optional<float[]> initialParameters() {
    return java.util.Optional.empty();
  }

  /** Replaces every parameter (a new replica, or a resynchronisation from a snapshot). */
  void load(float[] parameters);

  /** The coordinates {@code indices} of {@code parameters} changed since the last load/update. */
  void update(float[] parameters, int[] indices);

  /**
   * Computes the loss and gradient of worker {@code shard} on its minibatch for round ({@code epoch},
   * {@code batchIndex}) at the current parameters.
   *
   * @param gradientOut receives the gradient averaged over the minibatch; at the coordinates listed by
   *     {@link ObjectiveFactory#statisticsIndices()} it receives instead the running-statistics step
   *     {@code s} such that {@code x - s} is this worker's updated statistic (no learning rate applies)
   * @return the mean loss over the minibatch
   */
  double gradient(S shard, int epoch, int batchIndex, float[] gradientOut);

  /** A copy of the parameters the model actually computes with (for consistency tests and diagnostics). */
  float[] modelParameters();

  @Override
  default void close() {}
}
