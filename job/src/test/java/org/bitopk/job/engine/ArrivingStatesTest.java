package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.WorkerShard;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.problem.network.ImageProblem;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import scala.reflect.ClassTag$;

/**
 * Moved workers' states travel inside the round's own tasks: 4 workers in 2 groups, the states of group 1's two
 * workers given to {@link ArrivingStates}; one job over it (the round's) installs them, bit for bit, as the states
 * before the round, on the executor that runs group 1's task, and nowhere else; group 0's task carries none. The
 * states travel in group 1's partition itself, or, beyond the inline limit, as a broadcast its partition names.
 */
class ArrivingStatesTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  @ParameterizedTest
  @ValueSource(longs = {ArrivingStates.INLINE_BYTES, 0})
  void theRoundsTaskInstallsItsGroupsStatesAndCarriesNoOthers(long inlineBytes) throws Exception {
    JavaSparkContext sc = SPARK.context();
    String runId = "arriving-states-" + inlineBytes;
    AtomicInteger jobs = new AtomicInteger();
    SparkListener counter = new SparkListener() {
      @Override
      public void onJobStart(SparkListenerJobStart job) {
        jobs.incrementAndGet();
      }
    };
    try (ImageProblem problem = new ImageProblem(sc, "synthetic",
        Datasets.load("synthetic:n=400,test=10,shape=1x8x8,classes=4", null, new Configuration()),
        ModelArchitecture.MLP_SMALL, 4, false, 8, 3)) {
      var factory = problem.objectiveFactory();
      int d = factory.dimension();
      UplinkSettings uplink = new UplinkSettings(CompressorSpec.parse("topk"), 10, true, 0.9f, 3);
      JavaRDD<WorkerShard> groups = WorkerGroups.group(problem.shards(), 2, new GroupPlacement(List.of()));
      groups.count();   // built and cached before the round, as the groups' RDD always is
      List<WorkerMemory> moving = List.of(memory(2, d, 1f), memory(3, d, -1f));
      ArrivingStates<WorkerShard> arriving = ArrivingStates.of(groups, runId, factory, uplink, 7, Map.of(1, moving),
          inlineBytes);
      JavaRDD<WorkerShard> round = arriving.javaRdd();

      assertTrue(serializedSize(round.partitions().get(0)) < 2 * 1024, "group 0's partition carries no state");
      int carried = serializedSize(round.partitions().get(1));
      if (inlineBytes > 0) {
        assertTrue(carried > 2 * 2 * Float.BYTES * d, "group 1's partition carries its two workers' residuals and "
            + "momentum: " + carried + " bytes");
      } else {
        assertTrue(carried < 2 * 1024, "group 1's partition names a broadcast: " + carried + " bytes");
      }

      sc.sc().addSparkListener(counter);
      sc.sc().listenerBus().waitUntilEmpty();
      jobs.set(0);
      List<Integer> seen = round.mapPartitions(shards -> {
        List<Integer> ids = new ArrayList<>();
        shards.forEachRemaining(s -> ids.add(factory.workerId(s)));
        return ids.iterator();
      }).collect();
      sc.sc().listenerBus().waitUntilEmpty();
      arriving.release();
      assertEquals(1, jobs.get(), "the round's job alone");
      assertEquals(List.of(0, 1, 2, 3), seen, "the groups' shards read through, in order");

      RunState run = ExecutorRegistry.run(runId);
      assertNull(run.worker(0));
      assertNull(run.worker(1));
      for (WorkerMemory sent : moving) {
        WorkerState installed = run.worker(sent.worker());
        assertEquals(6, installed.round(), "the state before round 7");
        assertEquals(WorkerState.INITIAL, installed.token());
        assertEquals(WorkerState.Admission.CURRENT, installed.admit(7, WorkerState.INITIAL));
        WorkerMemory back = installed.saved(sent.worker());
        assertArrayEquals(sent.residual(), back.residual());
        assertArrayEquals(sent.velocity(), back.velocity());
      }
      run.forgetWorkersBefore(6);
      assertEquals(List.of(2, 3), run.workerIds(), "states of the round before are kept");
      run.forgetWorkersBefore(7);
      assertEquals(List.of(), run.workerIds(), "older ones, of workers that moved away, are dropped");
    } finally {
      sc.sc().removeSparkListener(counter);
      ExecutorRegistry.forget(runId);
    }
  }

  /** A moving worker's state: residual and momentum of distinct values, no compressor state (TopK keeps none). */
  private static WorkerMemory memory(int worker, int d, float sign) {
    float[] residual = new float[d];
    float[] velocity = new float[d];
    for (int j = 0; j < d; j++) {
      residual[j] = sign * (j + 1) / d;
      velocity[j] = sign * j * 0.5f;
    }
    return new WorkerMemory(worker, residual, velocity, null);
  }

  private static int serializedSize(Object o) {
    ByteBuffer bytes = SparkEnv.get().closureSerializer().newInstance()
        .serialize(o, ClassTag$.MODULE$.apply(Object.class));
    return bytes.remaining();
  }
}
