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
    DownlinkStrategy.ModelDifference, DownlinkStrategy.PreservedCentralModel {
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

  /**
   * MCM (Philippenko & Dieuleveut, NeurIPS 2021): the server keeps the exact central model x, a downlink memory H and
   * sends Ω = C(x' − H); workers compute at ŵ' = H + Ω and everyone sets H ← H + α_dwn·Ω. See
   * {@link PreservedCentralModel} for how the job keeps it; α_dwn = 1 is EF21-P bit for bit.
   */
  public static DownlinkStrategy preservedCentralModel(CompressorSpec compressor, int targetK, float memoryRate) {
    return new PreservedCentralModel(compressor, targetK, memoryRate);
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

    /** The downlink compressor's state (empty when it has none), with whatever else the strategy must resume. */
    byte[] compressorState();

    /**
     * The model the run reports, evaluates and writes, given the workers' model w (the replicas'): w itself, except
     * for MCM, whose preserved central model x differs from the workers' perturbed one. Not modified; may be returned.
     */
    default float[] centralModel(float[] workersModel) {
      return workersModel;
    }
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
              NormRatio.of(step.residualNorm(), step.compensatedNorm()));
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
          return new Sent(negated(step.sent()), step.targetK(), step.achievedK(),
              NormRatio.of(step.residualNorm(), step.compensatedNorm()));
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

  /**
   * MCM as the job keeps it. The paper's server holds x and H; workers hold ŵ = H + Ω of the last message. With
   * q = (1 − α)·Ω_prev, ŵ = H + q exactly in real arithmetic, so the server keeps what it needs as r = x − ŵ (the
   * server-residual slot) plus Ω_prev (k entries), and every round:
   *
   * <pre>
   *   c = r − (s − q)          (= x' − H, with x' = x − s)
   *   Ω = C(c)                 (the MCM message)
   *   r ← c − Ω                (= x' − ŵ')
   *   u = q − Ω                (replicas: ŵ ← ŵ − u = H + Ω; broadcast on supp(q) ∪ supp(Ω), at most 2k entries)
   *   Ω_prev ← Ω
   * </pre>
   *
   * The broadcast carries q next to Ω because the replicas keep ŵ, not H: a worker that kept H would need Ω alone
   * (k entries), so the job's downlink bytes are up to twice MCM's own message. With α = 1, q = 0 and this is
   * {@link ModelDifference} (EF21-P) bit for bit. Ω_prev travels in {@link ServerDownlink#compressorState} after the
   * compressor's own state, so checkpoints resume it.
   */
  static final class PreservedCentralModel extends DownlinkStrategy {
    private final CompressorSpec compressor;
    private final int targetK;
    private final float memoryRate;

    PreservedCentralModel(CompressorSpec compressor, int targetK, float memoryRate) {
      this.compressor = Objects.requireNonNull(compressor, "compressor");
      if (targetK < 1) {
        throw new IllegalArgumentException("downlink target k must be >= 1, got " + targetK);
      }
      if (!(memoryRate > 0f && memoryRate <= 1f)) {
        throw new IllegalArgumentException("downlink memory rate must be in (0, 1], got " + memoryRate);
      }
      this.targetK = targetK;
      this.memoryRate = memoryRate;
    }

    @Override
    public Integer targetK() {
      return targetK;
    }

    @Override
    public String describe() {
      return "mcm " + compressor + " (k = " + targetK + ", alpha_down = " + memoryRate + ")";
    }

    @Override
    ServerDownlink open(int dimension, long seed, float[] residual, byte[] compressorState) {
      if (targetK > dimension) {
        throw new IllegalArgumentException("downlink target k " + targetK + " exceeds the dimension " + dimension);
      }
      Compressor c = compressor.create(seed);
      SparseVector previous = null;
      if (compressorState != null) {
        java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(compressorState);
        try {
          byte[] own = new byte[in.getInt()];
          in.get(own);
          c.restoreState(own);
          if (in.get() == 1) {
            byte[] message = new byte[in.remaining()];
            in.get(message);
            previous = org.bitopk.compression.SparseCodec.decode(message);
          }
        } catch (java.nio.BufferUnderflowException | NegativeArraySizeException e) {
          throw new IllegalArgumentException("MCM downlink state is truncated (" + compressorState.length
              + " bytes)", e);
        }
        if (previous != null && previous.dimension() != dimension) {
          throw new IllegalArgumentException("MCM downlink state holds a message of dimension "
              + previous.dimension() + ", expected " + dimension);
        }
      }
      return openWith(c, targetK, memoryRate, residual != null ? ErrorFeedback.restore(residual)
          : ErrorFeedback.enabled(dimension), previous);
    }

    /** The server side with a given compressor; {@code difference} holds r = x − ŵ, {@code previous} Ω_prev. */
    static ServerDownlink openWith(Compressor c, int targetK, float memoryRate, ErrorFeedback difference,
        SparseVector previous) {
      return new ServerDownlink() {
        private SparseVector last = previous;

        @Override
        public Sent send(float[] average, int[] union) {
          int d = average.length;
          float keep = 1f - memoryRate;
          boolean remembers = memoryRate != 1f && last != null;
          float[] q = remembers ? new float[last.nnz()] : new float[0];
          float[] input = average;
          if (remembers) {
            input = average.clone();
            for (int n = 0; n < q.length; n++) {
              int j = last.index(n);
              q[n] = keep * last.value(n);
              input[j] = input[j] - q[n];
            }
          }
          CompressionStep step = difference.step(input, -1f, c, targetK);
          SparseVector omega = step.sent();
          SparseVector update = remembers ? difference(last.indices(), q, omega, d) : negated(omega);
          last = omega;
          return new Sent(update, step.targetK(), step.achievedK(),
              NormRatio.of(step.residualNorm(), step.compensatedNorm()));
        }

        /** u = q − Ω on supp(q) ∪ supp(Ω), q on the indices of the previous message. */
        private SparseVector difference(int[] qi, float[] q, SparseVector omega, int d) {
          int[] oi = omega.indices();
          float[] ov = omega.values();
          int[] indices = new int[qi.length + oi.length];
          float[] values = new float[indices.length];
          int a = 0;
          int b = 0;
          int n = 0;
          while (a < qi.length || b < oi.length) {
            if (b == oi.length || (a < qi.length && qi[a] < oi[b])) {
              indices[n] = qi[a];
              values[n++] = q[a++];
            } else if (a == qi.length || oi[b] < qi[a]) {
              indices[n] = oi[b];
              values[n++] = -ov[b++];
            } else {
              indices[n] = oi[b];
              values[n++] = q[a++] - ov[b++];
            }
          }
          return SparseVector.of(d, java.util.Arrays.copyOf(indices, n), java.util.Arrays.copyOf(values, n));
        }

        @Override
        public float[] residual() {
          return difference.residual();
        }

        @Override
        public byte[] compressorState() {
          byte[] own = c.saveState();
          byte[] message = last == null ? new byte[0]
              : org.bitopk.compression.SparseCodec.encode(last, org.bitopk.compression.ValueFormat.FP32);
          return java.nio.ByteBuffer.allocate(4 + own.length + 1 + message.length).putInt(own.length).put(own)
              .put((byte) (last == null ? 0 : 1)).put(message).array();
        }

        @Override
        public float[] centralModel(float[] workersModel) {
          float[] r = difference.residual();
          for (int j = 0; j < r.length; j++) {
            r[j] = workersModel[j] + r[j];
          }
          return r;
        }
      };
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
