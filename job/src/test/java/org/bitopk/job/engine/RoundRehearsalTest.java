package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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

  /** Four workers' shards of small synthetic images and a small MLP. */
  private static ImageProblem problem() throws Exception {
    return new ImageProblem(SPARK.context(), "synthetic",
        Datasets.load("synthetic:n=400,test=10,shape=1x8x8,classes=4", null, new Configuration()),
        ModelArchitecture.MLP_SMALL, 4, false, 8, 3);
  }

  @Test
  void rehearsesTheRoundAndLeavesTheReplicaAsANewOne() throws Exception {
    try (ImageProblem problem = problem()) {
      NetworkObjectiveFactory factory = problem.objectiveFactory();
      int d = factory.dimension();
      UplinkSettings uplink = new UplinkSettings(CompressorSpec.parse("topk"), 10, true, 0.9f, 3);
      List<WorkerShard> shards = problem.shards().collect().subList(2, 4);

      Replica<WorkerShard> rehearsed = new Replica<>(factory.create());
      float[] x0 = rehearsed.objective.initialParameters().orElseThrow();
      byte[] update = SparseCodec.encodeExactly(SparseVector.of(d, new int[] {1}, new float[] {0.5f}),
          ValueFormat.FP32);
      RoundRehearsal.Result result = new RoundRehearsal<>(factory, uplink).run(rehearsed, shards, x0::clone,
          () -> update);

      int passes = result.passes();
      assertTrue(passes >= 1 && passes <= RoundRehearsal.MAX_PASSES, "passes: " + passes);
      assertEquals(shards.get(1).workerId(), result.lastReport().workerId, "the last step's report");
      assertTrue(result.lastReport().uplink.length > 0, "with its encoded message");
      assertEquals(-1, rehearsed.iteration, "left new: the first real round loads x_t");
      assertFalse(Arrays.equals(x0, rehearsed.parameters), "the rehearsal stepped its replica");

      Replica<WorkerShard> reference = new Replica<>(factory.create());
      float[] x = x0.clone();
      x[0] += 0.25f;
      for (Replica<WorkerShard> replica : List.of(rehearsed, reference)) {
        System.arraycopy(x, 0, replica.parameters, 0, d);
        replica.objective.load(replica.parameters);
      }
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
      rehearsed.objective.close();
      reference.objective.close();
    }
  }

  @Test
  void aRehearsalNeedsAWorker() throws Exception {
    try (ImageProblem problem = problem()) {
      NetworkObjectiveFactory factory = problem.objectiveFactory();
      UplinkSettings uplink = new UplinkSettings(CompressorSpec.parse("topk"), 10, true, 0f, 3);
      try (var objective = factory.create()) {
        Replica<WorkerShard> replica = new Replica<>(objective);
        float[] x = new float[factory.dimension()];
        assertThrows(IllegalArgumentException.class,
            () -> new RoundRehearsal<>(factory, uplink).run(replica, List.of(), () -> x, () -> new byte[0]));
        assertEquals(-1, replica.iteration);
      }
    }
  }

  @Test
  void aJvmThatRehearsedAloneRehearsesARunInItsFewPasses() throws Exception {
    try (ImageProblem problem = problem()) {
      NetworkObjectiveFactory factory = problem.objectiveFactory();
      UplinkSettings uplink = new UplinkSettings(CompressorSpec.parse("topk"), 10, true, 0.9f, 3);
      List<WorkerShard> shards = problem.shards().collect().subList(0, 2);
      WorkerReport alone = RoundRehearsal.alone(factory, uplink, shards, 2);
      assertEquals(shards.get(1).workerId(), alone.workerId, "the last step's report");
      assertTrue(alone.uplink.length > 0, "with its encoded message");

      try (var objective = factory.create()) {
        Replica<WorkerShard> replica = new Replica<>(objective);
        float[] x = objective.initialParameters().orElseThrow();
        byte[] update = SparseCodec.encodeExactly(SparseVector.of(factory.dimension(), new int[] {1},
            new float[] {0.5f}), ValueFormat.FP32);
        RoundRehearsal.Result result = new RoundRehearsal<>(factory, uplink).run(replica, shards, x::clone,
            () -> update);
        assertEquals(RoundRehearsal.WARM_PASSES, result.passes(), "its code compiled, the run's passes are few");
        assertEquals(-1, replica.iteration, "left new");
      }

      // a run's rehearsal that starts while the JVM's own still runs waits for it rather than compiling beside it
      CompletableFuture<WorkerReport> running = CompletableFuture.supplyAsync(
          () -> RoundRehearsal.alone(factory, uplink, shards, 400));
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (!RoundRehearsal.warmingUp() && !running.isDone() && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertTrue(RoundRehearsal.warmingUp(), "400 passes outlast the spin");
      assertEquals(RoundRehearsal.WARM_PASSES, RoundRehearsal.runPasses());
      assertFalse(RoundRehearsal.warmingUp(), "the run's rehearsal waited for the JVM's to end");
      assertEquals(shards.get(1).workerId(), running.join().workerId);
    }
  }
}
