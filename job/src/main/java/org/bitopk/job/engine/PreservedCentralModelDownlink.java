package org.bitopk.job.engine;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import org.bitopk.compression.CompressionStep;
import org.bitopk.compression.Compressor;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.ErrorFeedback;
import org.bitopk.compression.SparseCodec;
import org.bitopk.compression.SparseVector;
import org.bitopk.compression.ValueFormat;

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
 * {@link ModelDifferenceDownlink} (EF21-P) bit for bit. Ω_prev travels in {@link ServerDownlink#compressorState}
 * after the compressor's own state, so checkpoints resume it.
 */
final class PreservedCentralModelDownlink extends CompressingDownlink {
  private final float memoryRate;

  PreservedCentralModelDownlink(CompressorSpec compressor, int targetK, float memoryRate) {
    super(compressor, targetK);
    if (!(memoryRate > 0f && memoryRate <= 1f)) {
      throw new IllegalArgumentException("downlink memory rate must be in (0, 1], got " + memoryRate);
    }
    this.memoryRate = memoryRate;
  }

  @Override
  public String describe() {
    return "mcm " + compressor + " (k = " + targetK + ", alpha_down = " + memoryRate + ")";
  }

  @Override
  ServerDownlink serverSide(Compressor c, ErrorFeedback memory) {
    return new Server(c, targetK, memoryRate, memory);
  }

  /** {@code compressorState}: the compressor's own state's length and bytes, then 0, or 1 and Ω_prev encoded. */
  @Override
  ServerDownlink resume(int dimension, long seed, float[] residual, byte[] compressorState) {
    Compressor c = compressor(dimension, seed);
    SparseVector previous = null;
    ByteBuffer in = ByteBuffer.wrap(compressorState);
    try {
      byte[] own = new byte[in.getInt()];
      in.get(own);
      c.restoreState(own);
      if (in.get() == 1) {
        byte[] message = new byte[in.remaining()];
        in.get(message);
        previous = SparseCodec.decode(message);
      }
    } catch (BufferUnderflowException | NegativeArraySizeException e) {
      throw new IllegalArgumentException("MCM downlink state is truncated (" + compressorState.length
          + " bytes)", e);
    }
    if (previous != null && previous.dimension() != dimension) {
      throw new IllegalArgumentException("MCM downlink state holds a message of dimension "
          + previous.dimension() + ", expected " + dimension);
    }
    ErrorFeedback difference = ErrorFeedback.restore(residual);
    return previous == null ? new Server(c, targetK, memoryRate, difference)
        : new Server(c, targetK, memoryRate, difference, previous);
  }

  /** The server side; {@code memory} holds r = x − ŵ, {@code last} Ω_prev (null before the first round). */
  private static final class Server extends Side {
    private final float memoryRate;
    private SparseVector last;

    /** Before the first round: no previous message. */
    Server(Compressor c, int targetK, float memoryRate, ErrorFeedback difference) {
      super(c, targetK, difference);
      this.memoryRate = memoryRate;
    }

    Server(Compressor c, int targetK, float memoryRate, ErrorFeedback difference, SparseVector previous) {
      this(c, targetK, memoryRate, difference);
      this.last = Objects.requireNonNull(previous, "previous message");
    }

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
      CompressionStep step = memory.step(input, -1f, compressor, targetK);
      SparseVector omega = step.sent();
      SparseVector update = remembers ? difference(last.indices(), q, omega, d) : negated(omega);
      last = omega;
      return new Sent(update, step.targetK(), step.achievedK(),
          NormRatio.of(step.residualNorm(), step.compensatedNorm()));
    }

    /** u = q − Ω on supp(q) ∪ supp(Ω), q on the indices of the previous message. */
    private static SparseVector difference(int[] qi, float[] q, SparseVector omega, int d) {
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
      return SparseVector.of(d, Arrays.copyOf(indices, n), Arrays.copyOf(values, n));
    }

    @Override
    public byte[] compressorState() {
      byte[] own = compressor.saveState();
      byte[] message = last == null ? new byte[0] : SparseCodec.encode(last, ValueFormat.FP32);
      return ByteBuffer.allocate(4 + own.length + 1 + message.length).putInt(own.length).put(own)
          .put((byte) (last == null ? 0 : 1)).put(message).array();
    }

    @Override
    public float[] centralModel(float[] workersModel) {
      float[] r = memory.residual();
      for (int j = 0; j < r.length; j++) {
        r[j] = workersModel[j] + r[j];
      }
      return r;
    }
  }
}
