package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
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

/** Bytes as serialized: the downlink saving of bidirectional compression grows with P (results.md). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ByteAccountingTest {
  private static final int WORKERS = 8;
  private static final int ROUNDS = 15;
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  private TrainTest data;

  @BeforeAll
  void loadData() {
    data = Datasets.load("synthetic:n=4000,test=100", null, new Configuration());
  }

  private RunRecorder run(Mode mode) {
    JavaSparkContext sc = SPARK.context();
    TrainingConfig config = TrainingConfig.builder().dataset("synthetic").mode(mode).model(ModelArchitecture.MLP_SMALL)
        .workers(WORKERS).densityUp(0.01).densityDown(0.01).learningRate(0.05).batchSize(16).maxIterations(ROUNDS)
        .consistencyCheckEvery(0).seed(3).build();
    RunRecorder recorder = new RunRecorder();
    try (ImageProblem problem = new ImageProblem(sc, "synthetic", data, ModelArchitecture.MLP_SMALL, WORKERS, false,
        16, 3)) {
      new Trainer<>(sc, RunPlans.of(config, problem, sc.defaultParallelism()), problem, "bytes-" + mode, List.of(recorder)).run();
    }
    return recorder;
  }

  @Test
  void bidirectionalDownlinkIsAtLeastHalfPTimesSmallerThanUnidirectional() {
    RunRecorder bidirectional = run(Mode.BIDIRECTIONAL);
    RunRecorder unidirectional = run(Mode.UNIDIRECTIONAL);
    long bi = bidirectional.summary.cumulativeDownBytes();
    long uni = unidirectional.summary.cumulativeDownBytes();
    assertTrue(bi <= uni / (0.5 * WORKERS), "downlink bytes: bidirectional " + bi + ", unidirectional " + uni);

    int d = bidirectional.summary.dimension();
    int k = Density.targetK(0.01, d);
    for (IterationRecord r : bidirectional.iterations) {
      assertEquals(k, r.downNnz());
      assertEquals((long) WORKERS * k, r.upNnz());
      // fp32 values alone take 4 bytes per non-zero; indices and headers come on top, but far below dense.
      assertTrue(r.downBytes() >= 4L * k && r.downBytes() < 4L * d / 10, "down bytes " + r.downBytes());
      assertTrue(r.upBytes() >= 4L * WORKERS * k && r.upBytes() <= 9L * WORKERS * k + 64L * WORKERS,
          "up bytes " + r.upBytes());
    }
    for (IterationRecord r : unidirectional.iterations) {
      assertEquals(r.aggNnz(), r.downNnz());
      assertTrue(r.aggNnz() > WORKERS * k / 2 && r.aggNnz() <= WORKERS * k, "union " + r.aggNnz());
    }
    long sumUp = bidirectional.iterations.stream().mapToLong(IterationRecord::upBytes).sum();
    assertEquals(sumUp, bidirectional.summary.cumulativeUpBytes());

    // Delivered: every one of the P receivers gets the payload; a replica that loads the dense snapshot 4·d more.
    for (RunRecorder run : List.of(bidirectional, unidirectional)) {
      long delivered = 0;
      for (IterationRecord r : run.iterations) {
        assertEquals(r.downBytes() * WORKERS + 4L * d * r.replicaResyncs(), r.downBytesDelivered(),
            "round " + r.iteration());
        delivered += r.downBytesDelivered();
      }
      assertEquals(delivered, run.summary.counters().downDeliveredBytes());
      assertEquals(delivered, run.epochs.get(run.epochs.size() - 1).cumDownBytesDelivered());
    }
    // New replicas build x_0 themselves: round 0 delivers no dense model.
    assertEquals(0, bidirectional.iterations.get(0).replicaResyncs(), "new replicas build x_0, no snapshot");
  }
}
