package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.compression.Compressor;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.Density;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.TrainTest;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.problem.network.ImageProblem;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.run.RunPlans;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The unbiased compressors end to end in a bidirectional Spark run: {@code --uplink natural} and
 * {@code --uplink randomk:scaled --downlink natural}. Every round's up and down bytes equal the codec's formula,
 * computed here from the dimension (natural: dense, 9 bits a value) or from the Random-k indices the workers' seeds
 * determine; the replicas stay bit-identical to the driver's model (checked every round and at the end).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnbiasedCompressorsTrainingTest {
  private static final int WORKERS = 3;
  private static final int ROUNDS = 6;
  private static final long SEED = 7;
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  private TrainTest data;

  @BeforeAll
  void loadData() {
    data = Datasets.load("synthetic:n=600,test=50", null, new Configuration());
  }

  private ReplicaWatch train(String uplink, String downlink) {
    JavaSparkContext sc = SPARK.context();
    TrainingConfig config = TrainingConfig.builder().dataset("synthetic").mode(Mode.BIDIRECTIONAL)
        .model(ModelArchitecture.MLP_SMALL).workers(WORKERS).uplink(CompressorSpec.parse(uplink))
        .downlink(CompressorSpec.parse(downlink)).densityUp(0.01).densityDown(0.01).learningRate(0.05)
        .batchSize(16).maxIterations(ROUNDS).consistencyCheckEvery(1).seed(SEED).build();
    ReplicaWatch checker = new ReplicaWatch();
    try (ImageProblem problem = new ImageProblem(sc, "synthetic", data, ModelArchitecture.MLP_SMALL, WORKERS, false,
        16, SEED)) {
      new Trainer<>(sc, RunPlans.of(config, problem, sc.defaultParallelism()), problem,
          "unbiased-" + uplink + "-" + downlink, List.of(checker)).run();
    }
    assertEquals(ROUNDS, checker.recorder.iterations.size());
    assertFalse(checker.replicas.isEmpty(), "no replica found in this JVM");
    for (ReplicaSnapshot replica : checker.replicas) {
      assertArrayEquals(checker.masters.get(replica.iteration()), replica.parameters(),
          "replica at iteration " + replica.iteration());
    }
    for (IterationRecord r : checker.recorder.iterations) {
      assertTrue(Double.isFinite(r.loss()), "loss " + r.loss());
    }
    return checker;
  }

  /** Natural compression, dense with 9-bit values: header (4 bytes, d and nnz = d as LEB128) + ceil(9d/8). */
  private static long naturalBytes(int d) {
    return 4 + 2 * leb128(d) + (9L * d + 7) / 8;
  }

  /** Golomb-Rice gaps at the best of the 31 parameters: one parameter byte, then unary quotient, stop bit, b bits. */
  private static long riceBytes(int[] indices) {
    long best = Long.MAX_VALUE;
    for (int b = 0; b <= 30; b++) {
      long bits = 0;
      long previous = -1;
      for (int index : indices) {
        bits += ((index - previous - 1) >> b) + 1 + b;
        previous = index;
      }
      best = Math.min(best, 1 + (bits + 7) / 8);
    }
    return best;
  }

  private static long leb128(long value) {
    long n = 1;
    while (value >= 128) {
      value >>>= 7;
      n++;
    }
    return n;
  }

  @Test
  void naturalUplinkSendsNineBitsPerCoordinate() {
    ReplicaWatch run = train("natural", "topk");
    int d = run.recorder.summary.dimension();
    for (IterationRecord r : run.recorder.iterations) {
      assertEquals((long) WORKERS * d, r.upNnz());
      assertEquals(WORKERS * naturalBytes(d), r.upBytes(), "round " + r.iteration());
    }
    assertEquals(ROUNDS * WORKERS * naturalBytes(d), run.recorder.summary.cumulativeUpBytes());
  }

  /**
   * Scaled Random-k's indices are a function of the worker's seed and the round, so the uplink bytes follow from
   * them: smallest index layout (delta, bitmap or Rice) + 4 bytes a value. The natural downlink is dense at 9 bits a
   * value.
   */
  @Test
  void scaledRandomKUplinkAndNaturalDownlinkMatchTheCodecFormula() {
    ReplicaWatch run = train("randomk:scaled", "natural");
    int d = run.recorder.summary.dimension();
    int k = Density.targetK(0.01, d);
    List<Compressor> selectors = new ArrayList<>();
    for (int w = 0; w < WORKERS; w++) {
      selectors.add(CompressorSpec.parse("randomk").create(RandomStreams.worker(SEED, w)));
    }
    float[] any = new float[d];
    for (IterationRecord r : run.recorder.iterations) {
      long expected = 0;
      for (Compressor selector : selectors) {
        int[] indices = selector.select(any, k).indices();
        long delta = 0;
        int previous = -1;
        for (int index : indices) {
          delta += leb128(index - previous);
          previous = index;
        }
        expected += 4 + leb128(d) + leb128(k) + Math.min(Math.min(delta, (d + 7) / 8), riceBytes(indices)) + 4L * k;
      }
      assertEquals((long) WORKERS * k, r.upNnz());
      assertEquals(expected, r.upBytes(), "round " + r.iteration());
      assertEquals(d, r.downNnz());
      assertEquals(naturalBytes(d), r.downBytes(), "round " + r.iteration());
    }
  }
}
