package org.bitopk.job.engine;

import java.util.Objects;
import org.bitopk.compression.CompressionStep;
import org.bitopk.compression.Compressor;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.ErrorFeedback;
import org.bitopk.compression.SparseVector;

/**
 * How the parameter server turns the average of the workers' uplinks into the update it broadcasts. Decided
 * once, in the run plan; the server only calls {@link #open}.
 */
public abstract sealed class DownlinkStrategy permits DownlinkStrategy.Compressed, DownlinkStrategy.Average,
    DownlinkStrategy.ModelDifference {
  private DownlinkStrategy() {}

  /** Bidirectional: c = a + e_s, p = C(c), e_s = c − p (server error feedback; DoubleSqueeze with C = TopK). */
  public static DownlinkStrategy compressed(CompressorSpec compressor, int targetK) {
    return new Compressed(compressor, targetK);
  }

  /**
   * EF21-P (Gruntkowska, Tyurin, Richtárik, ICML 2023): the server keeps the exact model x and the workers' model
   * w; x' = x − a, it broadcasts p = C(x' − w) and everyone sets w ← w + p. Kept as the difference r = x − w (the
   * only part of x the server does not already hold as its master copy w): c = r + (−1)·a = x' − w, p = C(c),
   * r ← c − p = x' − w'. The replicas subtract the update they receive, so the broadcast update is −p.
   */
  public static DownlinkStrategy modelDifference(CompressorSpec compressor, int targetK) {
    return new ModelDifference(compressor, targetK);
  }

  /** Unidirectional and dense: the average a itself is the update. */
  public static DownlinkStrategy average() {
    return Average.INSTANCE;
  }

  /** Target k of the downlink, or null when the update is the whole average. */
  public abstract Integer targetK();

  /** For config and reports, e.g. {@code topk (k = 242)} or {@code average}. */
  public abstract String describe();

  /**
   * The server's side of this strategy for one run.
   *
   * @param seed seed of the downlink compressor's random stream
   * @param residual e_s to continue from (a checkpoint), or null for zeros
   * @param compressorState the downlink compressor's saved state, or null for its seed's
   */
  abstract ServerDownlink open(int dimension, long seed, float[] residual, byte[] compressorState);

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

    /** The downlink compressor's state (empty when it has none). */
    byte[] compressorState();
  }

  static final class Compressed extends DownlinkStrategy {
    private final CompressorSpec compressor;
    private final int targetK;

    Compressed(CompressorSpec compressor, int targetK) {
      this.compressor = Objects.requireNonNull(compressor, "compressor");
      if (targetK < 1) {
        throw new IllegalArgumentException("downlink target k must be >= 1, got " + targetK);
      }
      this.targetK = targetK;
    }

    @Override
    public Integer targetK() {
      return targetK;
    }

    @Override
    public String describe() {
      return compressor + " (k = " + targetK + ")";
    }

    @Override
    ServerDownlink open(int dimension, long seed, float[] residual, byte[] compressorState) {
      ErrorFeedback feedback = residual != null ? ErrorFeedback.restore(residual) : ErrorFeedback.enabled(dimension);
      Compressor c = compressor.create(seed);
      if (compressorState != null) {
        c.restoreState(compressorState);
      }
      if (targetK > dimension) {
        throw new IllegalArgumentException("downlink target k " + targetK + " exceeds the dimension " + dimension);
      }
      return openWith(c, targetK, feedback);
    }

    /** The server side with a given compressor; {@code feedback} holds e_s. */
    static ServerDownlink openWith(Compressor c, int targetK, ErrorFeedback feedback) {
      return new ServerDownlink() {
        @Override
        public Sent send(float[] average, int[] union) {
          CompressionStep step = feedback.step(average, 1f, c, targetK);
          return new Sent(step.sent(), step.targetK(), step.achievedK(),
              ServerAggregator.ratio(step.residualNorm(), step.compensatedNorm()));
        }

        @Override
        public float[] residual() {
          return feedback.residual();
        }

        @Override
        public byte[] compressorState() {
          return c.saveState();
        }
      };
    }
  }

  static final class ModelDifference extends DownlinkStrategy {
    private final CompressorSpec compressor;
    private final int targetK;

    ModelDifference(CompressorSpec compressor, int targetK) {
      this.compressor = Objects.requireNonNull(compressor, "compressor");
      if (targetK < 1) {
        throw new IllegalArgumentException("downlink target k must be >= 1, got " + targetK);
      }
      this.targetK = targetK;
    }

    @Override
    public Integer targetK() {
      return targetK;
    }

    @Override
    public String describe() {
      return "ef21-p " + compressor + " (k = " + targetK + ")";
    }

    @Override
    ServerDownlink open(int dimension, long seed, float[] residual, byte[] compressorState) {
      if (targetK > dimension) {
        throw new IllegalArgumentException("downlink target k " + targetK + " exceeds the dimension " + dimension);
      }
      Compressor c = compressor.create(seed);
      if (compressorState != null) {
        c.restoreState(compressorState);
      }
      return openWith(c, targetK, residual != null ? ErrorFeedback.restore(residual)
          : ErrorFeedback.enabled(dimension));
    }

    /** The server side with a given compressor; {@code difference} holds r = x − w. */
    static ServerDownlink openWith(Compressor c, int targetK, ErrorFeedback difference) {
      return new ServerDownlink() {
        @Override
        public Sent send(float[] average, int[] union) {
          CompressionStep step = difference.step(average, -1f, c, targetK);
          SparseVector p = step.sent();
          float[] negated = p.values();
          for (int i = 0; i < negated.length; i++) {
            negated[i] = -negated[i];
          }
          return new Sent(SparseVector.of(p.dimension(), p.indices(), negated), step.targetK(), step.achievedK(),
              ServerAggregator.ratio(step.residualNorm(), step.compensatedNorm()));
        }

        @Override
        public float[] residual() {
          return difference.residual();
        }

        @Override
        public byte[] compressorState() {
          return c.saveState();
        }
      };
    }
  }

  static final class Average extends DownlinkStrategy {
    static final Average INSTANCE = new Average();

    @Override
    public Integer targetK() {
      return null;
    }

    @Override
    public String describe() {
      return "average";
    }

    @Override
    ServerDownlink open(int dimension, long seed, float[] residual, byte[] compressorState) {
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
  }
}
