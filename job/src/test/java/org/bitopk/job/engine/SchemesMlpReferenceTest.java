package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalDouble;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.TrainTest;
import org.bitopk.datasets.WorkerShard;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.config.DownlinkScheme;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.problem.WorkerObjective;
import org.bitopk.job.problem.network.ImageProblem;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.run.RunPlans;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every bidirectional scheme on a small MLP (synthetic 28×28 images, P = 4, minibatches of 16) through the real
 * Spark job, against {@link SchemeReference}: the same gradients computed one worker after another in this JVM by the
 * model's own objective, the schemes' arithmetic written out in the test. The workers' model after every round and
 * the run's final model (MCM's central model) are equal bit for bit.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchemesMlpReferenceTest {
  private static final int WORKERS = 4;
  private static final int ROUNDS = 8;
  private static final long SEED = 11;
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  private TrainTest data;

  @BeforeAll
  void loadData() {
    data = Datasets.load("synthetic:n=640,test=50", null, new Configuration());
  }

  @ParameterizedTest(name = "{0}/{1}, up {2}, down {3}, rates {4}/{5}")
  @CsvSource({
      "EF14, EF, topk, topk, , ",
      "EF21, EF, topk, topk, , ",
      "EF21, EF21_P, topk, topk, , ",
      "EF14, EF21_P, randomk, topk, , ",
      "ARTEMIS, MCM, topk, topk, 0.5, 0.25",
      "ARTEMIS, MCM, natural, randomk:scaled, , ",
      "EF14, MCM, topk, natural, , "})
  void schemeEqualsTheSequentialReference(UplinkFeedback feedback, DownlinkScheme scheme, String uplink,
      String downlink, Double upRate, Double downRate) {
    JavaSparkContext sc = SPARK.context();
    TrainingConfig config = TrainingConfig.builder().dataset("synthetic").mode(Mode.BIDIRECTIONAL).workers(WORKERS)
        .uplink(CompressorSpec.parse(uplink)).downlink(CompressorSpec.parse(downlink)).densityUp(0.01)
        .densityDown(0.01).learningRate(0.05).batchSize(16).maxIterations(ROUNDS).consistencyCheckEvery(1)
        .seed(SEED).uplinkFeedback(feedback).downlinkScheme(scheme)
        .upMemoryRate(upRate == null ? OptionalDouble.empty() : OptionalDouble.of(upRate))
        .downMemoryRate(downRate == null ? OptionalDouble.empty() : OptionalDouble.of(downRate)).build();
    List<float[]> masters = new ArrayList<>();
    float[][] model = new float[1][];
    try (ImageProblem problem = new ImageProblem(sc, "synthetic", data, ModelArchitecture.MLP_SMALL, WORKERS, false,
        16, SEED)) {
      RunPlan plan = RunPlans.of(config, problem, sc.defaultParallelism());
      new Trainer<>(sc, plan, problem, "mlp-reference-" + feedback + "-" + scheme + "-" + uplink + "-" + downlink,
          List.of(new RunListener() {
            @Override
            public void onStart(DriverState state) {
              masters.add(state.masterParameters());
            }

            @Override
            public void onIteration(IterationRecord record, DriverState state) {
              masters.add(state.masterParameters());
            }

            @Override
            public void onFinish(RunSummary summary, DriverState state) {
              model[0] = state.modelParameters();
            }
          })).run();

      List<WorkerShard> shards = new ArrayList<>(problem.shards().collect());
      shards.sort(Comparator.comparingInt(s -> problem.objectiveFactory().workerId(s)));
      WorkerObjective<WorkerShard> objective = problem.objectiveFactory().create();
      int perEpoch = plan.roundsPerEpoch();
      SchemeReference.Gradients gradients = (worker, round, w) -> {
        objective.load(w);
        float[] g = new float[w.length];
        objective.gradient(shards.get(worker), round / perEpoch, round % perEpoch, g);
        return g;
      };
      int d = masters.get(0).length;
      Float alphaUp = switch (feedback) {
        case EF14 -> null;
        case EF21 -> 1f;
        case ARTEMIS -> upRate != null ? (float) (double) upRate
            : (float) (1 / (2 * (RunPlans.omega(CompressorSpec.parse(uplink), d, plan.uplink().targetK()) + 1)));
        default -> throw new IllegalArgumentException(feedback.toString());
      };
      Float alphaDown = switch (scheme) {
        case EF -> null;
        case EF21_P -> 1f;
        case MCM -> downRate != null ? (float) (double) downRate
            : (float) (1 / (2 * (RunPlans.omega(CompressorSpec.parse(downlink), d,
                plan.downlink().targetK().getAsInt()) + 1)));
        default -> throw new IllegalArgumentException(scheme.toString());
      };
      List<float[]> expected = new ArrayList<>();
      SchemeReference.Result result = SchemeReference.run(masters.get(0), WORKERS, ROUNDS, gradients, uplink,
          downlink, plan.uplink().targetK(), plan.downlink().targetK().getAsInt(), alphaUp, alphaDown, 0.05f, SEED,
          (round, workersModel, central) -> expected.add(workersModel));
      expected.add(result.workersModel());
      assertEquals(ROUNDS + 1, masters.size());
      for (int t = 0; t <= ROUNDS; t++) {
        assertArrayEquals(expected.get(t), masters.get(t), "the workers' model before round " + t);
      }
      // MCM reports its central model x = ŵ + r; EF21-P (like server EF) reports the workers' model
      assertArrayEquals(scheme == DownlinkScheme.MCM ? result.centralModel() : result.workersModel(), model[0],
          "the run's model");
      assertFalse(java.util.Arrays.equals(masters.get(0), masters.get(ROUNDS)), "the model moved");
    }
  }
}
