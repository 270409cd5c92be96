package org.bitopk.job.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalInt;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaRDD;
import org.bitopk.compression.KRounding;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.config.TrainingConfigBuilder;
import org.bitopk.job.engine.RunPlan;
import org.bitopk.job.problem.Evaluation;
import org.bitopk.job.problem.ObjectiveFactory;
import org.bitopk.job.problem.TrainingProblem;
import org.bitopk.job.problem.quadratic.QuadraticObjectiveFactory;
import org.bitopk.job.problem.quadratic.QuadraticShard;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Settings resolved into the engine's plan: k per rounding rule, the downlink strategy per mode, tasks, rounds. */
class RunPlansTest {
  /** The Fashion-MNIST MLP's dimension: the thesis' k at ρ = 0.001 is 243 with its rounding, 242 with floor. */
  private static final int D = 242_762;

  /** A problem of the given size that never touches Spark (the plan needs only its shape). */
  private static TrainingProblem<QuadraticShard> problem(int workers, int roundsPerEpoch) {
    return new TrainingProblem<>() {
      @Override public String name() { return "shape-only"; }
      @Override public int workers() { return workers; }
      @Override public JavaRDD<QuadraticShard> shards() { throw new UnsupportedOperationException(); }
      @Override public ObjectiveFactory<QuadraticShard> objectiveFactory() { return new QuadraticObjectiveFactory(D); }
      @Override public float[] initialParameters() { return new float[D]; }
      @Override public int iterationsPerEpoch() { return roundsPerEpoch; }
      @Override public Evaluation evaluate(float[] parameters) { throw new UnsupportedOperationException(); }
      @Override public String saveModel(float[] x, FileSystem fs, Path dir) { throw new UnsupportedOperationException(); }
    };
  }

  private static TrainingConfigBuilder config() {
    return TrainingConfig.builder().dataset("synthetic").workers(20).densityUp(0.001).densityDown(0.001);
  }

  @Test
  void referenceRoundingGivesTheThesisK() {
    RunPlan floor = RunPlans.of(config().build(), problem(20, 300), 2);
    RunPlan reference = RunPlans.of(config().kRounding(KRounding.REFERENCE).build(), problem(20, 300), 2);
    assertEquals(242, floor.uplink().targetK());
    assertEquals(OptionalInt.of(242), floor.downlink().targetK());
    assertEquals("topk (k = 242)", floor.downlink().describe());
    assertEquals(243, reference.uplink().targetK());
    assertEquals(OptionalInt.of(243), reference.downlink().targetK());
    assertEquals("topk:strict (k = 243)", reference.downlink().describe(), "Zou's server keeps |c| > k-th largest");
  }

  @Test
  void modesDecideTheDownlinkOnce() {
    RunPlan uni = RunPlans.of(config().mode(Mode.UNIDIRECTIONAL).build(), problem(20, 300), 2);
    assertEquals(OptionalInt.empty(), uni.downlink().targetK());
    assertEquals("average", uni.downlink().describe());
    assertEquals(242, uni.uplink().targetK());
    assertTrue(uni.uplink().errorFeedback());
    RunPlan dense = RunPlans.of(TrainingConfig.builder().dataset("synthetic").workers(20).mode(Mode.DENSE).build(),
        problem(20, 300), 2);
    assertEquals(D, dense.uplink().targetK());
    assertEquals("none", dense.uplink().compressor().toString());
    assertEquals(false, dense.uplink().errorFeedback());
    assertEquals("average", dense.downlink().describe());
  }

  @ParameterizedTest(name = "P={0}, --tasks {1}, {2} slots -> {3}")
  @CsvSource({"20, 0, 2, 2", "20, 0, 64, 20", "20, 5, 2, 5", "3, 0, 2, 2", "1, 0, 8, 1"})
  void tasksDefaultToTheSlotsAndNeverExceedTheWorkers(int workers, int tasks, int slots, int expected) {
    RunPlan plan = RunPlans.of(config().workers(workers).tasks(tasks).build(), problem(workers, 10), slots);
    assertEquals(expected, plan.tasks());
    assertEquals(workers, plan.workers());
  }

  @Test
  void moreTasksThanWorkersIsRefusedNamingTheFlag() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> config().workers(4).tasks(5).build());
    assertEquals("--tasks: expected at most --workers (4) tasks, got 5", e.getMessage());
  }

  @Test
  void roundsAreEpochsTimesRoundsPerEpochCappedByMaxIterations() {
    assertEquals(3 * 300, RunPlans.of(config().epochs(3).build(), problem(20, 300), 2).totalRounds());
    assertEquals(450, RunPlans.of(config().epochs(3).maxIterations(450).build(), problem(20, 300), 2).totalRounds());
    assertEquals(0.1 * 0.5 * 0.5, RunPlans.of(config().learningRate(0.1).lrDecay(0.5).build(), problem(20, 300), 2)
        .learningRate(2), 1e-15);
  }
}
