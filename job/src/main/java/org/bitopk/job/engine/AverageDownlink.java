package org.bitopk.job.engine;

import java.util.OptionalInt;
import org.bitopk.compression.SparseVector;

/** Unidirectional and dense: the average a, on the coordinates some worker sent, is the update. */
final class AverageDownlink extends DownlinkStrategy {
  static final AverageDownlink INSTANCE = new AverageDownlink();

  private AverageDownlink() {}

  @Override
  public OptionalInt targetK() {
    return OptionalInt.empty();
  }

  @Override
  public String describe() {
    return "average";
  }

  @Override
  ServerDownlink open(int dimension, long seed) {
    return new ServerDownlink() {
      @Override
      public Sent send(float[] average, int[] union) {
        float[] values = new float[union.length];
        for (int i = 0; i < union.length; i++) {
          values[i] = average[union[i]];
        }
        return new Sent(SparseVector.of(dimension, union, values), union.length, union.length, 0.0);
      }

      @Override
      public float[] residual() {
        return new float[dimension];
      }

      @Override
      public byte[] compressorState() {
        return new byte[0];
      }
    };
  }

  /** Nothing to resume: the update depends on the round's uplinks alone. */
  @Override
  ServerDownlink resume(int dimension, long seed, float[] residual, byte[] compressorState) {
    return open(dimension, seed);
  }
}
