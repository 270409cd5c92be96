package org.bitopk.job.engine;

import java.util.List;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.Selection;
import org.bitopk.compression.SparseCodec;
import org.bitopk.compression.SparseVector;
import org.bitopk.compression.ValueFormat;

/**
 * The parameter server's arithmetic for one round: decode the workers' uplinks, average them
 * (a = (1/P)·Σ u_i, summed in worker order, then divided by P in float), and hand a to the run's
 * {@link DownlinkStrategy} (compress a + e_s, or send a as is). Running statistics are averaged densely and
 * added to the update uncompressed.
 *
 * <p>The update returned is the one decoded from the bytes that are broadcast, so the driver applies exactly
 * what the replicas apply.
 */
public final class ServerAggregator {
  private final int dimension;
  private final int workers;
  private final DownlinkStrategy.ServerDownlink downlink;
  private final int[] statisticsIndices;
  private final float[] sum;
  private final boolean[] touched;
  /** EF21's g = mean g_i, kept up to date by adding mean c_i each round; null for the other uplinks. */
  private final float[] estimate;
  /** lr·g, the step EF21 hands to the downlink; null for the other uplinks. */
  private final float[] step;
  /** Artemis: g = h + mean c_i is the step's estimate, and h moves by α_up·mean c_i (h = {@link #estimate}). */
  private final boolean artemis;
  private final float memoryRate;
  /** Whether h holds the workers' first, whole gradients already (Artemis sets h = mean ∇f_i(x⁰) in round 0). */
  private boolean estimateInitialised;

  /**
   * @param restoredResidual e_s of a checkpoint, or null
   * @param restoredCompressorState the downlink compressor's state of a checkpoint, or null
   */
  public ServerAggregator(int dimension, int workers, DownlinkStrategy strategy, long seed, int[] statisticsIndices,
      float[] restoredResidual, byte[] restoredCompressorState) {
    this(dimension, workers, strategy, seed, statisticsIndices, restoredResidual, restoredCompressorState,
        UplinkFeedback.EF14, null);
  }

  /**
   * @param feedback the workers' uplink feedback: with EF21 the server keeps g = mean g_i and steps with lr·g
   * @param restoredEstimate g of a checkpoint (EF21), or null for zeros
   */
  public ServerAggregator(int dimension, int workers, DownlinkStrategy strategy, long seed, int[] statisticsIndices,
      float[] restoredResidual, byte[] restoredCompressorState, UplinkFeedback feedback, float[] restoredEstimate) {
    this(dimension, workers, strategy, seed, statisticsIndices, restoredResidual, restoredCompressorState, feedback,
        restoredEstimate, 1f);
  }

  /**
   * @param memoryRate α_up of {@link UplinkFeedback#ARTEMIS} (h ← h + α_up·mean c_i after the first round); 1 otherwise
   */
  public ServerAggregator(int dimension, int workers, DownlinkStrategy strategy, long seed, int[] statisticsIndices,
      float[] restoredResidual, byte[] restoredCompressorState, UplinkFeedback feedback, float[] restoredEstimate,
      float memoryRate) {
    this.estimate = feedback.keepsGradientEstimate()
        ? (restoredEstimate != null ? restoredEstimate.clone() : new float[dimension]) : null;
    this.artemis = feedback == UplinkFeedback.ARTEMIS;
    this.memoryRate = memoryRate;
    this.estimateInitialised = restoredEstimate != null;
    this.step = estimate == null ? null : new float[dimension];
    this.dimension = dimension;
    this.workers = workers;
    this.downlink = restoredResidual == null ? strategy.open(dimension, seed)
        : strategy.resume(dimension, seed, restoredResidual, restoredCompressorState);
    this.statisticsIndices = statisticsIndices.clone();
    this.sum = new float[dimension];
    this.touched = new boolean[dimension];
  }

  /**
   * Result of one round on the server.
   *
   * @param update what every replica applies: the downlink's selection plus the averaged statistics
   * @param downNnz non-zeros the downlink selected, without the running statistics
   * @param statistics running statistics sent beside them (dense, every round)
   */
  public record Round(SparseVector update, byte[] encoded, long upNnz, long aggregateNnz, int downNnz,
      int statistics, int downTargetK, int downAchievedK, double deltaDown, Double xi) {}

  /**
   * @param reports one per worker, sorted by worker id
   * @param xiTargetK the uplink k when ξ is to be computed (reports then carry dense c_i and lr·g_i), else null
   */
  public Round aggregate(List<WorkerReport> reports, Integer xiTargetK) {
    return aggregate(reports, xiTargetK, 1f);
  }

  /**
   * @param learningRate lr of the round: EF21 steps with lr·g (the other uplinks applied it on the workers)
   */
  public Round aggregate(List<WorkerReport> reports, Integer xiTargetK, float learningRate) {
    if (reports.size() != workers) {
      throw new IllegalStateException("expected " + workers + " worker reports, got " + reports.size());
    }
    long upNnz = 0;
    int unionSize = 0;
    for (WorkerReport report : reports) {
      SparseVector u = SparseCodec.decode(report.uplink);
      if (u.dimension() != dimension) {
        throw new IllegalStateException("worker " + report.workerId + " sent dimension " + u.dimension()
            + ", expected " + dimension);
      }
      upNnz += u.nnz();
      int[] indices = u.indices();
      float[] values = u.values();
      for (int i = 0; i < indices.length; i++) {
        int j = indices[i];
        if (!touched[j]) {
          touched[j] = true;
          unionSize++;
        }
        sum[j] += values[i];
      }
    }
    Double xi = xiTargetK == null ? null : xi(reports, xiTargetK);
    int[] union = new int[unionSize];
    for (int j = 0, n = 0; n < unionSize; j++) {
      if (touched[j]) {
        touched[j] = false;
        union[n++] = j;
      }
    }
    float p = workers;
    for (int j : union) {
      sum[j] = sum[j] / p;
    }
    DownlinkStrategy.Sent sent;
    if (estimate == null) {
      sent = downlink.send(sum, union);
    } else {
      int support = 0;
      boolean memoryStep = artemis && estimateInitialised;
      if (!memoryStep) {
        // EF21: g ← g + mean c_i, then the step is lr·g, over every coordinate where g is non-zero (Artemis' round 0
        // too: h = mean ∇f_i(x⁰), the whole gradients)
        for (int j : union) {
          estimate[j] = estimate[j] + sum[j];
        }
        for (int j = 0; j < dimension; j++) {
          step[j] = learningRate * estimate[j];
          if (estimate[j] != 0f) {
            support++;
          }
        }
      } else {
        // Artemis/MCM: the step is lr·(h + mean c_i), then h ← h + α_up·mean c_i
        for (int j = 0; j < dimension; j++) {
          step[j] = learningRate * estimate[j];
        }
        for (int j : union) {
          step[j] = learningRate * (estimate[j] + sum[j]);
          estimate[j] = estimate[j] + memoryRate * sum[j];
        }
        for (int j = 0; j < dimension; j++) {
          if (step[j] != 0f) {
            support++;
          }
        }
      }
      estimateInitialised = true;
      int[] nonZero = new int[support];
      for (int j = 0, n = 0; n < support; j++) {
        if (memoryStep ? step[j] != 0f : estimate[j] != 0f) {
          nonZero[n++] = j;
        }
      }
      sent = downlink.send(step, nonZero);
    }
    SparseVector update = sent.update();
    int downNnz = update.nnz();
    for (int j : union) {
      sum[j] = 0f;
    }
    if (statisticsIndices.length > 0) {
      update = withStatistics(update, reports);
    }
    byte[] encoded = SparseCodec.encode(update, ValueFormat.FP32);
    return new Round(SparseCodec.decode(encoded), encoded, upNnz, unionSize, downNnz, statisticsIndices.length,
        sent.targetK(), sent.achievedK(), sent.deltaDown(), xi);
  }

  /** e_s, a copy. */
  public float[] residual() {
    return downlink.residual();
  }

  /** EF21's g = mean g_i (Artemis' h = mean h_i), a copy, or null for the other uplinks. */
  public float[] estimate() {
    return estimate == null ? null : estimate.clone();
  }

  /** The model the run reports and writes, given the workers' model (see {@link DownlinkStrategy.ServerDownlink}). */
  public float[] centralModel(float[] workersModel) {
    return downlink.centralModel(workersModel);
  }

  /** The downlink compressor's state, for checkpoints. */
  public byte[] compressorState() {
    return downlink.compressorState();
  }

  private SparseVector withStatistics(SparseVector update, List<WorkerReport> reports) {
    int m = statisticsIndices.length;
    float[] mean = new float[m];
    for (WorkerReport report : reports) {
      for (int i = 0; i < m; i++) {
        mean[i] += report.statistics[i];
      }
    }
    float p = workers;
    for (int i = 0; i < m; i++) {
      mean[i] = mean[i] / p;
    }
    int[] ui = update.indices();
    float[] uv = update.values();
    int[] indices = new int[ui.length + m];
    float[] values = new float[ui.length + m];
    int a = 0;
    int b = 0;
    int n = 0;
    while (a < ui.length || b < m) {
      if (b == m || (a < ui.length && ui[a] < statisticsIndices[b])) {
        indices[n] = ui[a];
        values[n++] = uv[a++];
      } else if (a == ui.length || statisticsIndices[b] < ui[a]) {
        indices[n] = statisticsIndices[b];
        values[n++] = mean[b++];
      } else {
        indices[n] = ui[a];
        values[n++] = uv[a++] + mean[b++];
      }
    }
    return SparseVector.of(dimension, java.util.Arrays.copyOf(indices, n), java.util.Arrays.copyOf(values, n));
  }

  /** ξ = ‖TopK(Σ c_i) − Σ TopK(c_i)‖ / ‖Σ lr·g_i‖, with {@link #sum} still holding Σ u_i. */
  private double xi(List<WorkerReport> reports, int k) {
    float[] sumC = new float[dimension];
    float[] sumG = new float[dimension];
    for (WorkerReport report : reports) {
      if (report.compensated == null) {
        throw new IllegalStateException("worker " + report.workerId + " did not report c_i for ξ");
      }
      for (int j = 0; j < dimension; j++) {
        sumC[j] += report.compensated[j];
        sumG[j] += report.scaledGradient[j];
      }
    }
    Selection top = CompressorSpec.parse("topk").create(0).select(sumC, k);
    float[] topDense = SparseVector.gather(sumC, top).toDense();
    double num = 0;
    double den = 0;
    for (int j = 0; j < dimension; j++) {
      double diff = (double) topDense[j] - sum[j];
      num += diff * diff;
      den += (double) sumG[j] * sumG[j];
    }
    return NormRatio.of(Math.sqrt(num), Math.sqrt(den));
  }
}
