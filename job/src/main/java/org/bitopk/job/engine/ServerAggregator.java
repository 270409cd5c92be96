package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.Selection;
import org.bitopk.compression.SparseCodec;
import org.bitopk.compression.SparseSum;
import org.bitopk.compression.SparseVector;
import org.jspecify.annotations.Nullable;

/**
 * The parameter server's arithmetic for one round, the same few steps for every scheme: decode the workers'
 * uplinks and average them (a = (1/P)·Σ u_i, summed in worker order, then divided by P in float); the run's
 * {@link ServerUplinkMemory} turns a into the step (a itself, or lr·g for EF21 and Artemis); the run's
 * {@link DownlinkStrategy} compresses the step (c = e_s + step, p = C(c), e_s = c − p: {@link CompressedDownlink})
 * or sends it as is. Running statistics are averaged densely and added to the update uncompressed.
 *
 * <p>The update returned is the one decoded from the bytes that are broadcast, so the driver applies exactly
 * what the replicas apply.
 */
public final class ServerAggregator {
  private final int dimension;
  private final int workers;
  private final ServerUplinkMemory uplink;
  private final DownlinkStrategy.ServerDownlink downlink;
  private final int[] statisticsIndices;
  /** Σ u_i, then a, at the union of the supports and +0 elsewhere: written by {@link #uplinks} each round. */
  private final float[] sum;
  /**
   * Decodes the uplinks and adds them into {@link #sum} in worker order, one cache-sized block at a time, on the
   * driver's aggregation threads (the same bits on any number of them).
   */
  private final SparseSum uplinks;

  /**
   * @param uplink what the server keeps of the workers' uplinks (fresh or resumed)
   * @param downlink the downlink strategy's server side ({@link DownlinkStrategy#open} or resumed)
   * @param aggregationThreads threads that decode and sum the uplinks ({@link AggregationThreads}), at least 1
   */
  ServerAggregator(int dimension, int workers, int[] statisticsIndices, ServerUplinkMemory uplink,
      DownlinkStrategy.ServerDownlink downlink, int aggregationThreads) {
    this.dimension = dimension;
    this.workers = workers;
    this.uplink = uplink;
    this.downlink = downlink;
    this.statisticsIndices = statisticsIndices.clone();
    this.sum = new float[dimension];
    this.uplinks = new SparseSum(sum, aggregationThreads);
  }

  /**
   * Result of one round on the server.
   *
   * @param update what every replica applies: the downlink's selection plus the averaged statistics
   * @param downNnz non-zeros the downlink selected, without the running statistics
   * @param statistics running statistics sent beside them (dense, every round)
   * @param xi ξ of the round; empty when the round did not measure it
   */
  public record Round(SparseVector update, byte[] encoded, long upNnz, long aggregateNnz, int downNnz,
      int statistics, int downTargetK, int downAchievedK, double deltaDown, OptionalDouble xi) {}

  /** One round at lr 1, without ξ. */
  public Round aggregate(List<WorkerReport> reports) {
    return aggregate(reports, 1f);
  }

  /**
   * One round without ξ.
   *
   * @param reports one per worker, sorted by worker id
   * @param learningRate lr of the round: EF21 steps with lr·g (the other uplinks applied it on the workers)
   */
  public Round aggregate(List<WorkerReport> reports, float learningRate) {
    return aggregate(reports, OptionalInt.empty(), learningRate);
  }

  /**
   * One round that also measures ξ (see {@link #xi}): the reports carry dense c_i and lr·g_i.
   *
   * @param xiTargetK the uplink k that ξ's TopK of Σ c_i keeps
   */
  public Round aggregateMeasuringXi(List<WorkerReport> reports, int xiTargetK, float learningRate) {
    return aggregate(reports, OptionalInt.of(xiTargetK), learningRate);
  }

  private Round aggregate(List<WorkerReport> reports, OptionalInt xiTargetK, float learningRate) {
    if (reports.size() != workers) {
      throw new IllegalStateException("expected " + workers + " worker reports, got " + reports.size());
    }
    long upNnz = addUplinks(reports);
    OptionalDouble xi = OptionalDouble.empty();
    int[] union;
    if (xiTargetK.isEmpty()) {
      union = uplinks.finishMean(workers);
    } else {
      union = uplinks.finish();
      xi = OptionalDouble.of(xi(reports, xiTargetK.getAsInt()));
      float p = workers;
      for (int j : union) {
        sum[j] = sum[j] / p;
      }
    }
    ServerUplinkMemory.Step step = uplink.step(sum, union, learningRate);
    DownlinkStrategy.Sent sent = downlink.send(step.vector(), step.support());
    SparseVector update = statisticsIndices.length > 0 ? withStatistics(sent.update(), reports) : sent.update();
    byte[] encoded = SparseCodec.encodeExactly(update, downlink.values());
    return new Round(SparseCodec.decode(encoded), encoded, upNnz, union.length, sent.update().nnz(),
        statisticsIndices.length, sent.targetK(), sent.achievedK(), sent.deltaDown(), xi);
  }

  /**
   * Queues the uplinks for {@link #sum} in worker order (each decoded and checked in full, none turned into a
   * {@link SparseVector}, all at once on the aggregation threads); returns Σ nnz(u_i). The sum, a = Σ u_i / P and
   * the union come from {@link SparseSum#finish}: each coordinate adds the workers' values in worker order, then
   * divides by P in float.
   */
  private long addUplinks(List<WorkerReport> reports) {
    uplinks.begin();
    List<byte[]> messages = new ArrayList<>(reports.size());
    for (WorkerReport report : reports) {
      int sent = SparseCodec.dimensionOf(report.uplink);
      if (sent != dimension) {
        throw new IllegalStateException("worker " + report.workerId + " sent dimension " + sent + ", expected "
            + dimension);
      }
      messages.add(report.uplink);
    }
    return uplinks.addAll(messages);
  }

  /** e_s, a copy. */
  public float[] residual() {
    return downlink.residual();
  }

  /** EF21's g = mean g_i (Artemis' h = mean h_i), a copy, or null for the other uplinks. */
  public float @Nullable [] estimate() {
    return uplink.estimate();
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
    return SparseVector.of(dimension, Arrays.copyOf(indices, n), Arrays.copyOf(values, n));
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
