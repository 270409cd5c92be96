package org.bitopk.job.engine;

import java.util.Arrays;
import org.bitopk.compression.Compressor;
import org.bitopk.compression.SparseVector;

/**
 * A worker's EF21 gradient estimate g_i (Richtárik, Sokolov, Fatkhullin, NeurIPS 2021), as in the authors'
 * {@code DL/EF21_100K.py} of {@code IgorSokoloff/ef21_experiments_source_code}:
 *
 * <ul>
 *   <li>first step (g_i not yet set): g_i = ∇f_i(x⁰), sent whole (the authors' workers start from the full
 *       gradient at x⁰, uncompressed);
 *   <li>then: c_i = C(∇f_i(x) − g_i) with c formed as {@code input[j] - g[j]} in float; g_i[j] = g_i[j] + c_i[j]
 *       on the selected coordinates.
 * </ul>
 *
 * <p>Artemis/MCM's uplink memory (Philippenko & Dieuleveut; {@code LocalDownCompressModelUpdate.compute_locally}
 * of {@code philipco/mcm-bidirectional-compression}) is the same with a rate α: g_i[j] = g_i[j] + α·c_i[j]. EF21 is
 * α = 1, for which the product is skipped (bit for bit the EF21 update). The message is the compressor's
 * {@link Compressor#message}: an unbiased compressor sends its scaled or rounded values.
 *
 * <p>The learning rate is not applied here: g_i is in gradient units and the server steps with lr·g, so a decayed
 * learning rate never leaves a stale g_i behind. Two buffers: the estimate before the last step is kept for
 * {@link #rollBack}.
 */
final class GradientEstimate implements UplinkMemory {
  private float[] estimate;
  private float[] previous;
  private boolean initialised;
  private boolean previousInitialised;
  private boolean undoable;
  private final float rate;

  private GradientEstimate(float[] estimate, boolean initialised, float rate) {
    if (!(rate > 0f && rate <= 1f)) {
      throw new IllegalArgumentException("memory rate must be in (0, 1], got " + rate);
    }
    this.rate = rate;
    this.estimate = estimate;
    this.previous = new float[estimate.length];
    this.initialised = initialised;
  }

  /** @param rate α: 1 for EF21, α_up for Artemis */
  static GradientEstimate fresh(int dimension, float rate) {
    return new GradientEstimate(new float[dimension], false, rate);
  }

  /** Continues from a saved g_i (copied, must be finite) with rate α. */
  static GradientEstimate restore(float[] saved, float rate) {
    for (float v : saved) {
      if (!Float.isFinite(v)) {
        throw new IllegalArgumentException("EF21 gradient estimate holds a non-finite value");
      }
    }
    return new GradientEstimate(saved.clone(), true, rate);
  }

  @Override
  public Step step(float[] input, float learningRate, Compressor compressor, int targetK) {
    int d = estimate.length;
    if (input.length != d) {
      throw new IllegalArgumentException("input length " + input.length + " does not match dimension " + d);
    }
    float[] next = previous;
    float[] c = new float[d];
    double sumSquares = 0;
    if (!initialised) {
      for (int j = 0; j < d; j++) {
        c[j] = input[j];
        sumSquares += (double) c[j] * c[j];
      }
    } else {
      for (int j = 0; j < d; j++) {
        c[j] = input[j] - estimate[j];
        sumSquares += (double) c[j] * c[j];
      }
    }
    if (!Double.isFinite(sumSquares)) {
      throw new IllegalArgumentException("∇f_i − g_i overflowed to a non-finite value");
    }
    SparseVector sent;
    int target;
    if (!initialised) {
      int[] all = new int[d];
      for (int j = 0; j < d; j++) {
        all[j] = j;
      }
      sent = SparseVector.of(d, all, c.clone());
      target = d;
    } else {
      sent = compressor.message(c, targetK);
      target = targetK;
    }
    System.arraycopy(initialised ? estimate : new float[d], 0, next, 0, d);
    int[] idx = sent.indices();
    float[] val = sent.values();
    // the first message (the whole gradient) sets g_i whatever α: Artemis' "smart" initialisation h_i⁰ = ∇f_i(x⁰)
    boolean scaled = rate != 1f && initialised;
    double residualSquares = 0;
    for (int i = 0; i < idx.length; i++) {
      next[idx[i]] = next[idx[i]] + (scaled ? rate * val[i] : val[i]);
      double left = (double) c[idx[i]] - val[i];
      residualSquares += left * left - (double) c[idx[i]] * c[idx[i]];
    }
    previous = estimate;
    estimate = next;
    previousInitialised = initialised;
    initialised = true;
    undoable = true;
    // ‖c − sent‖: a selector sends c's own values (c − sent = 0 there); an unbiased compressor its own
    double residual = Math.sqrt(Math.max(0, sumSquares + residualSquares));
    return new Step(sent, target, idx.length, Math.sqrt(sumSquares), residual);
  }

  @Override
  public void rollBack() {
    if (!undoable) {
      throw new IllegalStateException("no step to roll back");
    }
    float[] swap = estimate;
    estimate = previous;
    previous = swap;
    initialised = previousInitialised;
    undoable = false;
  }

  @Override
  public boolean canRollBack() {
    return undoable;
  }

  @Override
  public float[] memory() {
    return Arrays.copyOf(estimate, estimate.length);
  }
}
