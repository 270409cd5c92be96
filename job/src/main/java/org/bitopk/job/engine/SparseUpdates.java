package org.bitopk.job.engine;

import org.bitopk.compression.SparseVector;

/**
 * The one function that moves a parameter vector from x_t to x_{t+1}.
 *
 * <p>The driver's master model and every executor-side replica call this same method with the same decoded
 * update, so they perform the same float operations in the same order and stay bit-identical without ever
 * shipping the dense model. Nothing else in the job may change a parameter vector.
 */
public final class SparseUpdates {
  private SparseUpdates() {}

  /**
   * Applies {@code x[j] = x[j] - p_j} for every stored coordinate of {@code update}, in ascending index order.
   *
   * @throws IllegalArgumentException if the dimensions differ
   */
  public static void apply(float[] parameters, SparseVector update) {
    if (update.dimension() != parameters.length) {
      throw new IllegalArgumentException("update dimension " + update.dimension()
          + " does not match the parameter vector's " + parameters.length);
    }
    int[] indices = update.indices();
    float[] values = update.values();
    for (int i = 0; i < indices.length; i++) {
      int j = indices[i];
      parameters[j] = parameters[j] - values[i];
    }
  }
}
