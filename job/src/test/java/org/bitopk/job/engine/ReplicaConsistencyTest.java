package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.bitopk.datasets.Datasets;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.problem.network.ImageProblem;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.problem.quadratic.QuadraticObjectiveFactory;
import org.bitopk.job.run.RunPlans;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Executor-side replicas stay bit-identical to the driver's float[] master model: the per-iteration checksum
 * check is on, and at the end every pooled replica (its canonical vector and the DL4J network's own
 * parameters) is compared with the driver's x at the replica's iteration.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplicaConsistencyTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  /** Records x_t for every t and compares the executor replicas with it at the end of the run. */
  private static final class ReplicaChecker extends ReplicaWatch {
    int forgetAt = -1;

    @Override
    public void onIteration(IterationRecord record, DriverState state) {
      super.onIteration(record, state);
      if (record.iteration() == forgetAt) {
        ExecutorRegistry.forget(state.runId()); // as if every executor had been replaced
      }
    }

    void assertReplicasMatch() {
      assertFalse(replicas.isEmpty(), "no replica found in this JVM");
      for (ReplicaSnapshot replica : replicas) {
        float[] master = masters.get(replica.iteration());
        assertArrayEquals(master, replica.parameters(), "replica at iteration " + replica.iteration());
        assertArrayEquals(master, replica.modelParameters(), "model of replica at iteration " + replica.iteration());
      }
    }
  }

  private ReplicaChecker train(Mode mode, ModelArchitecture model, int workers, int rounds, int window,
      int snapshotEvery, int forgetAt) {
    JavaSparkContext sc = SPARK.context();
    TrainingConfig config = TrainingConfig.builder().dataset("synthetic").mode(mode).model(model).workers(workers)
        .densityUp(0.01).densityDown(0.005).learningRate(0.05).batchSize(16).epochs(1).maxIterations(rounds)
        .consistencyCheckEvery(1).updateWindow(window).snapshotEvery(snapshotEvery).seed(11).build();
    ReplicaChecker checker = new ReplicaChecker();
    checker.forgetAt = forgetAt;
    try (ImageProblem problem = new ImageProblem(sc, "synthetic", Datasets.load("synthetic", null, new Configuration()),
        model, workers, false, 16, 11)) {
      new Trainer<>(sc, RunPlans.of(config, problem, sc.defaultParallelism()), problem, "consistency-" + mode + "-" + model + "-" + forgetAt,
          List.of(checker)).run();
    }
    assertEquals(rounds, checker.recorder.iterations.size());
    return checker;
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void replicasEqualTheDriverModelInEveryMode(Mode mode) {
    ReplicaChecker checker = train(mode, ModelArchitecture.MLP_SMALL, 4, 30, 8, 4, -1);
    checker.assertReplicasMatch();
    assertEquals(0, checker.recorder.iterations.stream().mapToInt(IterationRecord::lostResiduals).sum());
  }

  @Test
  void batchNormStatisticsStayConsistentToo() {
    train(Mode.BIDIRECTIONAL, ModelArchitecture.CNN_BN, 2, 8, 4, 4, -1).assertReplicasMatch();
  }

  /** Executors "replaced" mid-run: replicas resynchronise from the snapshot; lost residuals are counted. */
  @Test
  void lostExecutorStateIsRecoveredAndCounted() {
    int workers = 4;
    ReplicaChecker checker = train(Mode.BIDIRECTIONAL, ModelArchitecture.MLP_SMALL, workers, 20, 4, 3, 9);
    checker.assertReplicasMatch();
    List<IterationRecord> records = checker.recorder.iterations;
    assertEquals(workers, records.get(10).lostResiduals());
    assertTrue(records.get(10).replicaResyncs() >= 1, "replicas must be restored from the snapshot");
    assertEquals(workers, records.stream().mapToInt(IterationRecord::lostResiduals).sum());
  }

  /** A replica behind by fewer than window iterations catches up from the update broadcasts alone. */
  @Test
  void replicaCatchesUpThroughTheWindowOrTheSnapshot() {
    int d = 50;
    JavaSparkContext sc = SPARK.context();
    UpdateChain chain = UpdateChain.of(sc, d, 6, 5, 5);
    List<float[]> models = chain.models();
    List<Broadcast<byte[]>> updates = chain.updates();
    Broadcast<float[]> snapshot = sc.broadcast(models.get(4));
    // Window holds updates 2..5 (x_2 -> x_6), 5 inline; the snapshot is x_4.
    DownlinkView view = new DownlinkView(6, 2, updates.subList(2, 5), updates.get(5).value(), 4, snapshot,
        ReplicaStart.SNAPSHOT);
    RunState run = new RunState();
    Replica<?> behind = new Replica<>(new QuadraticObjectiveFactory(d).create());
    System.arraycopy(models.get(3), 0, behind.parameters, 0, d);
    behind.objective.load(behind.parameters);
    behind.iteration = 3;
    Replica.CatchUp viaWindow = behind.catchUp(view, run, FaultInjector.NONE);
    assertEquals(new Replica.CatchUp(3, false), viaWindow);
    assertArrayEquals(models.get(6), behind.parameters);
    assertArrayEquals(models.get(6), behind.objective.modelParameters());

    Replica<?> fresh = new Replica<>(new QuadraticObjectiveFactory(d).create());
    assertEquals(new Replica.CatchUp(2, true), fresh.catchUp(view, run, FaultInjector.NONE));
    assertArrayEquals(models.get(6), fresh.parameters);

    Replica<?> tooOld = new Replica<>(new QuadraticObjectiveFactory(d).create());
    tooOld.iteration = 1;
    assertEquals(new Replica.CatchUp(2, true), tooOld.catchUp(view, run, FaultInjector.NONE));
    assertArrayEquals(models.get(6), tooOld.objective.modelParameters());
    updates.forEach(Broadcast::destroy);
    snapshot.destroy();
  }
}
