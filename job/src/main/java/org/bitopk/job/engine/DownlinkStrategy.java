package org.bitopk.job.engine;

import java.util.OptionalInt;
import org.bitopk.compression.SparseVector;
import org.bitopk.compression.ValueFormat;

/**
 * How the parameter server turns the average of the workers' uplinks into the update it broadcasts. Decided
 * once, in the run plan ({@link DownlinkStrategies} makes them); the server only calls {@link #open} (or
 * {@link #resume}). One file per strategy: {@link CompressedDownlink}, {@link ModelDifferenceDownlink},
 * {@link PreservedCentralModelDownlink} (the three {@link CompressingDownlink}s) and {@link AverageDownlink}.
 */
public abstract sealed class DownlinkStrategy permits CompressingDownlink, AverageDownlink {
  DownlinkStrategy() {}

  /** Target k of the downlink; empty when the update is the whole average. */
  public abstract OptionalInt targetK();

  /** For config and reports, e.g. {@code topk (k = 242)} or {@code average}. */
  public abstract String describe();

  /**
   * The server's side of this strategy for a new run: zero residual, the compressor as its seed makes it.
   *
   * @param seed seed of the downlink compressor's random stream
   */
  abstract ServerDownlink open(int dimension, long seed);

  /**
   * The server's side of this strategy continuing a checkpointed run.
   *
   * @param residual e_s, as {@link ServerDownlink#residual} gave it
   * @param compressorState as {@link ServerDownlink#compressorState} gave it
   */
  abstract ServerDownlink resume(int dimension, long seed, float[] residual, byte[] compressorState);

  /** What the server sent in one round. */
  record Sent(SparseVector update, int targetK, int achievedK, double deltaDown) {}

  /** The server's state of a strategy during a run. */
  interface ServerDownlink {
    /**
     * @param average the average a, dense; read only at {@code union}, the coordinates some worker sent
     */
    Sent send(float[] average, int[] union);

    /** e_s, a copy (zeros when the strategy keeps none). */
    float[] residual();

    /** The downlink compressor's state (empty when it has none), with whatever else the strategy must resume. */
    byte[] compressorState();

    /** The format of the update's values (FP32 unless the strategy rounds them). */
    default ValueFormat values() {
      return ValueFormat.FP32;
    }

    /**
     * The model the run reports, evaluates and writes, given the workers' model w (the replicas'): w itself, except
     * for MCM, whose preserved central model x differs from the workers' perturbed one. Not modified; may be returned.
     */
    default float[] centralModel(float[] workersModel) {
      return workersModel;
    }
  }

  /** −p for a message p that receivers add (replicas subtract the update). */
  static SparseVector negated(SparseVector p) {
    float[] values = p.values();
    for (int i = 0; i < values.length; i++) {
      values[i] = -values[i];
    }
    return SparseVector.of(p.dimension(), p.indices(), values);
  }
}
