package org.bitopk.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.datasets.Datasets;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.engine.IterationRecord;
import org.bitopk.job.engine.RunRecorder;
import org.bitopk.job.engine.Trainer;
import org.bitopk.job.problem.network.ImageProblem;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.run.RunPlans;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** CIFAR-10's VGG19-BN (20M parameters) builds and takes a few bidirectional steps through Spark. */
class Vgg19SmokeTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  @Test
  void vggTakesAFewConsistentSteps() {
    JavaSparkContext sc = SPARK.context();
    int rounds = 3;
    TrainingConfig config = TrainingConfig.builder().dataset("synthetic").model(ModelArchitecture.VGG19_BN)
        .workers(2).densityUp(0.001).densityDown(0.001).learningRate(0.05).batchSize(2).epochs(2).maxIterations(rounds)
        .consistencyCheckEvery(1).seed(1).build();
    RunRecorder recorder = new RunRecorder();
    try (ImageProblem problem = new ImageProblem(sc, "synthetic", Datasets.load("synthetic:n=8,test=4,shape=3x32x32",
        null, new Configuration()), ModelArchitecture.VGG19_BN, 2, false, 2, 1)) {
      new Trainer<>(sc, RunPlans.of(config, problem, sc.defaultParallelism()), problem, "vgg-smoke", List.of(recorder)).run();
    }
    assertEquals(rounds, recorder.iterations.size());
    for (IterationRecord r : recorder.iterations) {
      assertTrue(Double.isFinite(r.loss()) && r.loss() > 0, "loss " + r.loss());
      // k = 0.001 * d over the weights; the 2 x 5,504 batch-norm statistics travel densely beside them.
      assertEquals(20_051, r.downNnz());
      assertEquals(11_008, r.downStats());
    }
  }
}
