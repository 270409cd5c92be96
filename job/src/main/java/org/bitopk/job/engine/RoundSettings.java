package org.bitopk.job.engine;

import java.io.Serializable;

/**
 * What changes from round to round in a task's closure.
 *
 * @param epoch 0-based epoch of the round (selects the minibatch order)
 * @param batchIndex the round's minibatch within the epoch
 * @param learningRate lr of the round, applied before compression
 * @param checksum whether replicas report a checksum of x_t this round
 * @param collectXi whether workers report the dense c_i and lr·g_i for ξ
 * @param captureVector whether workers report the dense c_i for a {@link VectorCapture}
 */
public record RoundSettings(int epoch, int batchIndex, float learningRate, boolean checksum, boolean collectXi,
    boolean captureVector) implements Serializable {

  /** Whether the workers return their dense compensated vector c_i this round. */
  boolean reportsCompensated() {
    return collectXi || captureVector;
  }
}
