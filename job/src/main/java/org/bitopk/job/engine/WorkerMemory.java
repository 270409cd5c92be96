package org.bitopk.job.engine;

import java.io.Serializable;
import org.jspecify.annotations.Nullable;

/**
 * What a worker remembers across rounds, as collected from its executor for a checkpoint. A class rather
 * than a record: Kryo 4, Spark's serializer, cannot write records. What is absent is null rather than an Optional,
 * which Kryo and Java serialization cannot write either; a checkpoint's worker arrays are absent in the same cases.
 */
public final class WorkerMemory implements Serializable {
  private static final long serialVersionUID = 2L;

  private final int worker;
  private final float @Nullable [] residual;
  private final float @Nullable [] velocity;
  private final byte @Nullable [] compressorState;

  /**
   * @param worker the worker id
   * @param residual its memory vector: the error-feedback residual e_i (EF14) or the gradient estimate g_i (EF21);
   *     null if the executor had no current state for it
   * @param velocity its momentum buffer, or null (no momentum, or no current state)
   * @param compressorState its uplink compressor's state ({@code Compressor.saveState}), or null (no current state)
   */
  public WorkerMemory(int worker, float @Nullable [] residual, float @Nullable [] velocity,
      byte @Nullable [] compressorState) {
    this.worker = worker;
    this.residual = residual;
    this.velocity = velocity;
    this.compressorState = compressorState;
  }

  /** The memory of a worker whose executor had no current state for it: it resumes afresh. */
  public static WorkerMemory notCollected(int worker) {
    return new WorkerMemory(worker, null, null, null);
  }

  public int worker() {
    return worker;
  }

  /** Shared, not copied: the checkpoint copies it. */
  public float @Nullable [] residual() {
    return residual;
  }

  public float @Nullable [] velocity() {
    return velocity;
  }

  public byte @Nullable [] compressorState() {
    return compressorState;
  }

  /** The bytes of what it holds: residual, momentum, compressor state. */
  public long bytes() {
    return Float.BYTES * ((residual == null ? 0L : residual.length) + (velocity == null ? 0L : velocity.length))
        + (compressorState == null ? 0 : compressorState.length);
  }
}
