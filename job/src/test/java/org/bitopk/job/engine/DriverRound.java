package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.SparseCodec;
import org.bitopk.compression.SparseVector;
import org.bitopk.compression.ValueFormat;
import org.bitopk.job.problem.synthetic.SyntheticGradientSetting;
import org.bitopk.job.problem.synthetic.SyntheticGradients;

/**
 * The driver's share of a bidirectional round, as {@code Trainer.round} does it after the workers' job: decode the P
 * uplinks and average them, the server's error feedback and TopK, encode ({@link ServerAggregator#aggregate}), apply
 * the update to the master model ({@link SparseUpdates#apply}), and publish it as a broadcast, with the dense snapshot
 * when one is due ({@link DownlinkWindow}). The uplinks are the synthetic-gradient problem's messages (each worker's k
 * large entries, encoded by {@link SparseCodec} as a worker encodes them), made once for a few rounds and replayed.
 */
final class DriverRound implements AutoCloseable {
  /** The job's defaults: --update-window 32, --snapshot-every 32. */
  private static final int WINDOW = 32;

  private final ServerAggregator server;
  private final float[] master;
  private final DownlinkWindow window;
  private final List<List<WorkerReport>> uplinks;
  private int round;

  private DriverRound(ServerAggregator server, float[] master, DownlinkWindow window,
      List<List<WorkerReport>> uplinks) {
    this.server = server;
    this.master = master;
    this.window = window;
    this.uplinks = uplinks;
  }

  /**
   * @param k the uplink's and the downlink's k
   * @param distinctRounds how many rounds of uplinks to make; round t replays those of t mod distinctRounds
   * @param aggregationThreads the driver's threads that decode and sum the uplinks
   */
  static DriverRound create(JavaSparkContext sc, SyntheticGradientSetting setting, int workers, int k, long seed,
      int distinctRounds, int aggregationThreads) {
    int d = setting.dimension();
    SyntheticGradients gradients = new SyntheticGradients(setting, workers, k, seed);
    List<List<WorkerReport>> uplinks = new ArrayList<>();
    for (int t = 0; t < distinctRounds; t++) {
      List<WorkerReport> reports = new ArrayList<>();
      for (int w = 0; w < workers; w++) {
        SparseVector u = message(d, gradients.support(w, t), gradients.largeValues(w, t));
        reports.add(new WorkerReport.Builder(w, t, "driver-benchmark")
            .message(SparseCodec.encode(u, ValueFormat.FP32), new float[0], 0.0,
                new UplinkMemory.Step(u, k, k, 0, 0))
            .build());
      }
      uplinks.add(reports);
    }
    ServerAggregator server = new ServerAggregator(d, workers, new int[0], ServerUplinkMemory.NONE,
        DownlinkStrategies.compressed(CompressorSpec.parse("topk"), k).open(d, RandomStreams.server(seed)),
        aggregationThreads);
    DownlinkWindow window = new DownlinkWindow(sc, WINDOW, WINDOW);
    float[] master = new float[d];
    window.start(0, master, ReplicaStart.builtOnExecutors(master));
    return new DriverRound(server, master, window, uplinks);
  }

  /** A worker's message: its k entries in ascending coordinate order. */
  static SparseVector message(int dimension, int[] support, float[] values) {
    long[] packed = new long[support.length];
    for (int m = 0; m < support.length; m++) {
      packed[m] = ((long) support[m] << 32) | m;
    }
    Arrays.sort(packed);
    int[] indices = new int[support.length];
    float[] sorted = new float[support.length];
    for (int m = 0; m < packed.length; m++) {
      indices[m] = (int) (packed[m] >>> 32);
      sorted[m] = values[(int) packed[m]];
    }
    return SparseVector.of(dimension, indices, sorted);
  }

  /** One round on the driver; returns what the server sent. */
  ServerAggregator.Round next() {
    int t = round++;
    ServerAggregator.Round sent = server.aggregate(uplinks.get(t % uplinks.size()), 1f);
    SparseUpdates.apply(master, sent.update());
    window.publish(t, sent.encoded());
    window.maybeSnapshot(t + 1, master);
    return sent;
  }

  /** The uplinks round t replays, decoded. */
  List<SparseVector> uplinks(int t) {
    return uplinks.get(t % uplinks.size()).stream().map(r -> SparseCodec.decode(r.uplink)).toList();
  }

  /** Σ nnz of one round's uplinks: the coordinates the driver receives. */
  long receivedCoordinates() {
    return uplinks.get(0).stream().mapToLong(r -> SparseCodec.decode(r.uplink).nnz()).sum();
  }

  /** x after the rounds so far, a copy. */
  float[] master() {
    return master.clone();
  }

  /** e_s, a copy. */
  float[] residual() {
    return server.residual();
  }

  @Override
  public void close() {
    window.close();
  }
}
