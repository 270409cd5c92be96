package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.TrainTest;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.problem.network.ImageProblem;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.run.RunPlans;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Worker groups and retried rounds, on local[2] with up to 3 attempts per task: the P logical workers packed
 * into any number S of Spark tasks give the same model bit for bit, and a task attempt that fails after its
 * workers took their step (their residual, momentum and compressor already advanced) is retried without
 * counting the step twice.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkerGroupsTest {
  private static final int WORKERS = 8;
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark(conf -> conf.setMaster("local[2,3]")); // 3 attempts per task
  private TrainTest data;
  /** Tasks of each completed stage, by stage name, to see that a round really ran S tasks. */
  private final Map<Integer, Integer> tasksPerStage = new ConcurrentHashMap<>();

  @BeforeAll
  void start() {
    SPARK.context().sc().addSparkListener(new SparkListener() {
      @Override
      public void onStageCompleted(SparkListenerStageCompleted stage) {
        tasksPerStage.put(stage.stageInfo().stageId(), stage.stageInfo().numTasks());
      }
    });
    data = Datasets.load("synthetic:n=1600,test=200,shape=1x8x8,classes=4", null, new Configuration());
  }

  /** A finished run: its records and final model. */
  private record Outcome(List<IterationRecord> iterations, float[] model) {}

  private Outcome train(Mode mode, int workers, int tasks, double momentum, String uplink, String runId) {
    return train(mode, workers, tasks, momentum, uplink, runId, FaultInjector.NONE);
  }

  private Outcome train(Mode mode, int workers, int tasks, double momentum, String uplink, String runId,
      FaultInjector faults) {
    TrainingConfig config = TrainingConfig.builder().dataset("synthetic").mode(mode).model(ModelArchitecture.MLP_SMALL)
        .workers(workers).tasks(tasks).uplink(CompressorSpec.parse(uplink)).densityUp(0.02).densityDown(0.01)
        .learningRate(0.05).momentum(momentum).batchSize(8).epochs(1).maxIterations(12).consistencyCheckEvery(1)
        .seed(3).build();
    RunRecorder recorder = new RunRecorder();
    float[][] model = new float[1][];
    RunListener last = new RunListener() {
      @Override
      public void onFinish(RunSummary summary, DriverState state) {
        model[0] = state.masterParameters();
      }
    };
    JavaSparkContext sc = SPARK.context();
    try (ImageProblem problem = new ImageProblem(sc, "synthetic", data, ModelArchitecture.MLP_SMALL, workers, false,
        8, 3)) {
      RunPlan plan = RunPlans.of(config, problem, sc.defaultParallelism());
      assertEquals(tasks, plan.tasks());
      new Trainer<>(sc, plan, problem, runId, List.of(recorder, last)).injectFaults(faults).run();
    }
    return new Outcome(new ArrayList<>(recorder.iterations), model[0]);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void anyNumberOfTasksGivesTheSameModelBitForBit(Mode mode) {
    Outcome reference = train(mode, WORKERS, WORKERS, 0, "topk", "groups-" + mode + "-8");
    for (int tasks : new int[] {1, 2}) {
      tasksPerStage.clear();
      Outcome grouped = train(mode, WORKERS, tasks, 0, "topk", "groups-" + mode + "-" + tasks);
      assertEquals(ParameterChecksum.of(reference.model()), ParameterChecksum.of(grouped.model()),
          mode + ": final model with " + tasks + " tasks differs from 8 tasks");
      for (int t = 0; t < reference.iterations().size(); t++) {
        IterationRecord a = reference.iterations().get(t);
        IterationRecord b = grouped.iterations().get(t);
        assertEquals(a.loss(), b.loss(), 0.0, "round " + t);
        assertEquals(a.upBytes(), b.upBytes(), "round " + t);
        assertEquals(a.downBytes(), b.downBytes(), "round " + t);
        assertEquals(tasks, b.tasks());
        assertEquals(0, b.lostResiduals());
      }
      long roundsWithSTasks = tasksPerStage.values().stream().filter(n -> n == tasks).count();
      assertTrue(roundsWithSTasks >= 12, "only " + roundsWithSTasks + " stages ran " + tasks + " tasks: "
          + tasksPerStage);
    }
  }

  /**
   * Attempt 0 of the task holding worker 5 fails right after worker 5's step in round 4: Spark retries the task,
   * the workers it holds roll back to their state before round 4 and take the step once more. Momentum (a second
   * buffer) and the residual (error feedback's second buffer) are both rolled back: the model is the undisturbed
   * run's bit for bit, and the record says which steps were redone.
   */
  @Test
  void aRetriedAttemptCountsTheStepOnce() {
    Outcome undisturbed = train(Mode.BIDIRECTIONAL, WORKERS, 4, 0.9, "topk", "retry-reference");
    Outcome retried = train(Mode.BIDIRECTIONAL, WORKERS, 4, 0.9, "topk", "retry-injected",
        new InjectedFaults.FailAfterStep("4:5"));
    assertEquals(ParameterChecksum.of(undisturbed.model()), ParameterChecksum.of(retried.model()),
        "final model after a retried round differs from the undisturbed run's");
    // 8 workers in 4 tasks: worker 5 shares its task with worker 4; both had stepped before the failure.
    assertEquals(2, retried.iterations().get(4).rolledBack());
    assertEquals(2, retried.iterations().stream().mapToInt(IterationRecord::rolledBack).sum());
    assertEquals(0, retried.iterations().stream().mapToInt(IterationRecord::lostResiduals).sum());
    for (int t = 0; t < undisturbed.iterations().size(); t++) {
      assertEquals(undisturbed.iterations().get(t).loss(), retried.iterations().get(t).loss(), 0.0, "round " + t);
    }
  }
}
