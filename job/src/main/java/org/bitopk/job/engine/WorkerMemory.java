package org.bitopk.job.engine;

import java.io.Serializable;

/**
 * What a worker remembers across rounds, as collected from its executor for a checkpoint. A class rather
 * than a record: Kryo 4, Spark's serializer, cannot write records.
 */
public final class WorkerMemory implements Serializable {
  private static final long serialVersionUID = 2L;

  private final int worker;
  private final float[] residual;
  private final float[] velocity;
  private final byte[] compressorState;

  /**
   * @param worker the worker id
   * @param residual its memory vector: the error-feedback residual e_i (EF14) or the gradient estimate g_i (EF21);
   *     null if the executor had no current state for it
   * @param velocity its momentum buffer, or null (no momentum, or no current state)
   * @param compressorState its uplink compressor's state ({@code Compressor.saveState}), or null (no current state)
   */
  public WorkerMemory(int worker, float[] residual, float[] velocity, byte[] compressorState) {
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
  public float[] residual() {
    return residual;
  }

  public float[] velocity() {
    return velocity;
  }

  public byte[] compressorState() {
    return compressorState;
  }
}
