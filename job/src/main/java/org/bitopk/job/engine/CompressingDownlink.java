package org.bitopk.job.engine;

import java.util.Objects;
import java.util.OptionalInt;
import org.bitopk.compression.CompressionStep;
import org.bitopk.compression.Compressor;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.ErrorFeedback;
import org.bitopk.compression.ValueFormat;

/**
 * The downlink strategies that compress with a memory vector on the server (e_s, or the model difference r):
 * their compressor, target k, and how a run opens or resumes them.
 */
abstract sealed class CompressingDownlink extends DownlinkStrategy
    permits CompressedDownlink, ModelDifferenceDownlink, PreservedCentralModelDownlink {
  final CompressorSpec compressor;
  final int targetK;

  CompressingDownlink(CompressorSpec compressor, int targetK) {
    this.compressor = Objects.requireNonNull(compressor, "compressor");
    if (targetK < 1) {
      throw new IllegalArgumentException("downlink target k must be >= 1, got " + targetK);
    }
    this.targetK = targetK;
  }

  /** The server side with its compressor and memory vector (zero, or a checkpoint's). */
  abstract ServerDownlink serverSide(Compressor c, ErrorFeedback memory);

  @Override
  public final OptionalInt targetK() {
    return OptionalInt.of(targetK);
  }

  @Override
  ServerDownlink open(int dimension, long seed) {
    return serverSide(compressor(dimension, seed), ErrorFeedback.enabled(dimension));
  }

  @Override
  ServerDownlink resume(int dimension, long seed, float[] residual, byte[] compressorState) {
    Compressor c = compressor(dimension, seed);
    c.restoreState(compressorState);
    return serverSide(c, ErrorFeedback.restore(residual));
  }

  /** The compressor for a model of {@code dimension} entries, from its seed. */
  final Compressor compressor(int dimension, long seed) {
    if (targetK > dimension) {
      throw new IllegalArgumentException("downlink target k " + targetK + " exceeds the dimension " + dimension);
    }
    return compressor.create(seed);
  }

  /**
   * The server side of a memory step: c = m + scale·s (s the step handed to {@link ServerDownlink#send}),
   * p = C(c), m = c − p ({@link ErrorFeedback#step}); the update broadcast is scale·p, scale being 1 or −1.
   */
  static ServerDownlink memoryStep(Compressor c, int targetK, ErrorFeedback memory, float scale) {
    return memoryStep(c, targetK, memory, scale, ValueFormat.FP32);
  }

  /** {@link #memoryStep(Compressor, int, ErrorFeedback, float)} sending p's values rounded to {@code values}. */
  static ServerDownlink memoryStep(Compressor c, int targetK, ErrorFeedback memory, float scale,
      ValueFormat values) {
    return new Side(c, targetK, memory) {
      @Override
      public ValueFormat values() {
        return values;
      }

      @Override
      public Sent send(float[] step, int[] union) {
        CompressionStep s = memory.step(step, scale, compressor, targetK, values);
        return new Sent(scale < 0 ? negated(s.sent()) : s.sent(), s.targetK(), s.achievedK(),
            NormRatio.of(s.residualNorm(), s.compensatedNorm()));
      }
    };
  }

  /** A server side whose state is its memory vector and its compressor's own state. */
  abstract static class Side implements ServerDownlink {
    final Compressor compressor;
    final int targetK;
    final ErrorFeedback memory;

    Side(Compressor compressor, int targetK, ErrorFeedback memory) {
      this.compressor = compressor;
      this.targetK = targetK;
      this.memory = memory;
    }

    @Override
    public float[] residual() {
      return memory.residual();
    }

    @Override
    public byte[] compressorState() {
      return compressor.saveState();
    }
  }
}
