package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.SparseCodec;
import org.bitopk.compression.SparseVector;
import org.bitopk.compression.ValueFormat;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.WorkerShard;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.problem.network.ImageProblem;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.problem.network.NetworkObjectiveFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A joining executor's rehearsal of the round takes real steps on its replica and leaves nothing behind that a
 * run could see: the replica is new again, and brought to the same x it computes the same gradient, bit for bit,
 * as a replica that never rehearsed (the reference); the workers' own states, made afresh from their seeds after
 * it, take the same first step as without it.
 */
class RoundRehearsalTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  @Test
  void rehearsesTheRoundAndLeavesTheReplicaAsANewOne() throws Exception {
    try (ImageProblem problem = new ImageProblem(SPARK.context(), "synthetic",
        Datasets.load("synthetic:n=400,test=10,shape=1x8x8,classes=4", null, new Configuration()),
        ModelArchitecture.MLP_SMALL, 4, false, 8, 3)) {
      NetworkObjectiveFactory factory = problem.objectiveFactory();
      int d = factory.dimension();
      UplinkSettings uplink = new UplinkSettings(CompressorSpec.parse("topk"), 10, true, 0.9f, 3);
      List<WorkerShard> shards = problem.shards().collect().subList(2, 4);

      float[] x0;
      try (var builder = factory.create()) {
        x0 = builder.initialParameters().orElseThrow();
      }
      try (DownlinkWindow window = new DownlinkWindow(SPARK.context(), 4, 4)) {
        window.start(0, x0, ReplicaStart.SNAPSHOT);
        for (int t = 0; t < 3; t++) {   // the rounds' updates, as the driver publishes them
          SparseVector update = SparseVector.of(d, new int[] {t, d - 1 - t}, new float[] {0.5f, -0.25f});
          window.publish(t, SparseCodec.encodeExactly(update, ValueFormat.FP32));
        }
        DownlinkView view = window.view(3);
        RunState run = ExecutorRegistry.run("round-rehearsal");
        Replica<WorkerShard> rehearsed = new Replica<>(factory.create());
        int passes = new RoundRehearsal<>(factory, uplink).run(rehearsed, shards, view, run);

        assertTrue(passes >= 1 && passes <= RoundRehearsal.MAX_PASSES, "passes: " + passes);
        assertEquals(-1, rehearsed.iteration, "left new: the first real round loads x_t");
        Replica<WorkerShard> reference = new Replica<>(factory.create());
        reference.catchUp(view, ExecutorRegistry.run("round-rehearsal-reference"), FaultInjector.NONE);
        assertFalse(Arrays.equals(reference.parameters, rehearsed.parameters), "the rehearsal stepped its replica");

        rehearsed.catchUp(view, run, FaultInjector.NONE);   // the move's round
        assertEquals(3, rehearsed.iteration);
        assertArrayEquals(reference.parameters, rehearsed.parameters, "x_3, through the rehearsal's decoded updates");
        ExecutorRegistry.forget("round-rehearsal");
        ExecutorRegistry.forget("round-rehearsal-reference");
        compareGradients(factory, uplink, shards, rehearsed, reference);
        rehearsed.objective.close();
        reference.objective.close();
      }
    }
  }

  /** The same gradient and first step on both replicas, bit for bit. */
  private static void compareGradients(NetworkObjectiveFactory factory, UplinkSettings uplink,
      List<WorkerShard> shards, Replica<WorkerShard> rehearsed, Replica<WorkerShard> reference) {
    int d = factory.dimension();
    for (WorkerShard shard : shards) {
      double rehearsedLoss = rehearsed.objective.gradient(shard, 1, 2, rehearsed.gradient);
      double referenceLoss = reference.objective.gradient(shard, 1, 2, reference.gradient);
      assertEquals(referenceLoss, rehearsedLoss, 0.0);
      assertArrayEquals(reference.gradient, rehearsed.gradient, "worker " + shard.workerId() + "'s gradient");

      int w = factory.workerId(shard);
      UplinkMemory.Step afterRehearsal = WorkerState.fresh(uplink, w, d, 5).step(rehearsed.gradient, 0.1f, uplink, w, 5);
      UplinkMemory.Step untouched = WorkerState.fresh(uplink, w, d, 5).step(reference.gradient, 0.1f, uplink, w, 5);
      assertArrayEquals(untouched.sent().indices(), afterRehearsal.sent().indices());
      assertArrayEquals(untouched.sent().values(), afterRehearsal.sent().values());
    }
  }

  @Test
  void aGroupWithoutShardsRehearsesNothing() throws Exception {
    try (ImageProblem problem = new ImageProblem(SPARK.context(), "synthetic",
        Datasets.load("synthetic:n=400,test=10,shape=1x8x8,classes=4", null, new Configuration()),
        ModelArchitecture.MLP_SMALL, 4, false, 8, 3)) {
      NetworkObjectiveFactory factory = problem.objectiveFactory();
      UplinkSettings uplink = new UplinkSettings(CompressorSpec.parse("topk"), 10, true, 0f, 3);
      Replica<WorkerShard> replica = new Replica<>(factory.create());
      try (DownlinkWindow window = new DownlinkWindow(SPARK.context(), 1, 1)) {
        window.start(0, new float[factory.dimension()], ReplicaStart.SNAPSHOT);
        assertEquals(0, new RoundRehearsal<>(factory, uplink).run(replica, List.of(), window.view(0),
            ExecutorRegistry.run("round-rehearsal-empty")));
        ExecutorRegistry.forget("round-rehearsal-empty");
      }
      assertEquals(-1, replica.iteration);
      replica.objective.close();
    }
  }
}
