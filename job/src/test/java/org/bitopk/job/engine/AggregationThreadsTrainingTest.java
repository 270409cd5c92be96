package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.TrainTest;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.problem.network.ImageProblem;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.run.RunPlans;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A training run through the real Spark job is the same bit for bit whatever the driver's aggregation threads: the
 * MLP (d = 242,372, four blocks of the server's sum, so 3 threads get ranges of one, one and two blocks) on synthetic
 * 28×28 images, P = 5, 10 rounds, run with 1, 2 and 3 threads. Final model, and every round's loss, union of the
 * supports, update size and bytes and the server's δ (from ‖c‖²) equal the one-thread run's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AggregationThreadsTrainingTest {
  private static final int WORKERS = 5;
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  private TrainTest data;

  @BeforeAll
  void load() {
    data = Datasets.load("synthetic:n=500,test=50,shape=1x28x28,classes=4", null, new Configuration());
  }

  private record Outcome(List<IterationRecord> iterations, float[] model) {}

  private Outcome train(Mode mode, int threads) {
    TrainingConfig config = TrainingConfig.builder().dataset("synthetic").mode(mode).model(ModelArchitecture.MLP)
        .workers(WORKERS).uplink(CompressorSpec.parse("topk")).densityUp(0.02).densityDown(0.01).learningRate(0.05)
        .batchSize(8).epochs(1).maxIterations(10).seed(5).build();
    RunRecorder recorder = new RunRecorder();
    JavaSparkContext sc = SPARK.context();
    try (ImageProblem problem = new ImageProblem(sc, "synthetic", data, ModelArchitecture.MLP, WORKERS, false, 8,
        5)) {
      RunPlan plan = RunPlans.of(config, problem, sc.defaultParallelism());
      new Trainer<>(sc, plan, problem, "aggregation-" + mode + "-" + threads, List.of(recorder))
          .aggregationThreads(threads).run();
    }
    return new Outcome(new ArrayList<>(recorder.iterations), recorder.model);
  }

  @ParameterizedTest
  @EnumSource(value = Mode.class, names = {"BIDIRECTIONAL", "UNIDIRECTIONAL"})
  void anyNumberOfAggregationThreadsTrainsTheSameModelBitForBit(Mode mode) {
    Outcome one = train(mode, 1);
    assertEquals(242_372, one.model().length);
    for (int threads : new int[] {2, 3}) {
      Outcome many = train(mode, threads);
      assertArrayEquals(one.model(), many.model(), mode + ": the final model on " + threads + " threads");
      assertEquals(one.iterations().size(), many.iterations().size());
      for (int t = 0; t < one.iterations().size(); t++) {
        IterationRecord a = one.iterations().get(t);
        IterationRecord b = many.iterations().get(t);
        String where = mode + ", " + threads + " threads, round " + t;
        assertEquals(a.loss(), b.loss(), 0.0, where);
        assertEquals(a.aggNnz(), b.aggNnz(), where);
        assertEquals(a.downNnz(), b.downNnz(), where);
        assertEquals(a.downBytes(), b.downBytes(), where);
        assertEquals(Double.doubleToRawLongBits(a.deltaDown()), Double.doubleToRawLongBits(b.deltaDown()), where);
      }
    }
  }
}
