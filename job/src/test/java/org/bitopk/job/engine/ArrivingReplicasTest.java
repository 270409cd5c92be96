package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.problem.quadratic.QuadraticObjectiveFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The replicas waiting on a joining executor are brought to x_t by a Spark job of their own: the model the updates
 * make of the snapshot, applied here by hand; never a replica set up for it; and a catch-up that fails leaves the
 * replica new, never at an iteration its parameters are not at.
 */
class ArrivingReplicasTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  private static final int D = 40;
  private static final String RUN = "arriving-replicas-test";

  private final List<float[]> models = new ArrayList<>();
  private final List<Broadcast<byte[]>> updates = new ArrayList<>();
  private Broadcast<float[]> snapshot;
  private DownlinkView view;
  private JavaRDD<Integer> groups;

  /** x_0 .. x_8 by eight sparse updates; the window holds updates 2..7 (7 inline), the snapshot is x_3. */
  @BeforeEach
  void window() {
    JavaSparkContext sc = SPARK.context();
    UpdateChain chain = UpdateChain.of(sc, D, 8, 6, 11);
    models.addAll(chain.models());
    updates.addAll(chain.updates());
    snapshot = sc.broadcast(models.get(3));
    view = new DownlinkView(8, 2, updates.subList(2, 7), updates.get(7).value(), 3, snapshot, ReplicaStart.SNAPSHOT);
    groups = sc.parallelize(List.of(0, 1, 2, 3), 2);
  }

  @AfterEach
  void forget() {
    ExecutorRegistry.forget(RUN);
    updates.forEach(Broadcast::destroy);
    snapshot.destroy();
  }

  private static void idleReplica() {
    RunState run = ExecutorRegistry.run(RUN);
    run.release(run.borrow(new QuadraticObjectiveFactory(D), Integer.MAX_VALUE));   // set up, then idle
  }

  @Test
  void bringsTheIdleReplicaToTheViewsModel() {
    idleReplica();
    AtomicInteger released = new AtomicInteger();
    ArrivingReplicas.start(groups, List.of(0), RUN, view, FaultInjector.NONE, released::incrementAndGet).await(8);
    assertEquals(1, released.get(), "the window's hold released once it ended");
    List<ReplicaSnapshot> replicas = ExecutorRegistry.replicas(RUN);
    assertEquals(1, replicas.size());
    assertEquals(8, replicas.get(0).iteration());
    assertArrayEquals(models.get(8), replicas.get(0).parameters());
    assertArrayEquals(models.get(8), replicas.get(0).modelParameters(), "the objective holds x_8 too");
  }

  /** Two groups' tasks and one idle replica: one task brings it along, the other sets none up. */
  @Test
  void setsUpNoReplica() {
    idleReplica();
    ArrivingReplicas.start(groups, List.of(0, 1), RUN, view, FaultInjector.NONE, () -> { }).await(8);
    List<ReplicaSnapshot> replicas = ExecutorRegistry.replicas(RUN);
    assertEquals(1, replicas.size(), "no replica set up for the catching up");
    assertEquals(8, replicas.get(0).iteration());
  }

  /** An update's broadcast gone halfway through the window: the replica is left new, for the snapshot's load. */
  @Test
  void aFailedCatchUpLeavesTheReplicaNew() {
    idleReplica();
    updates.get(5).destroy();
    updates.set(5, SPARK.context().broadcast(new byte[0]));   // for the clean-up; the view keeps the destroyed one
    ArrivingReplicas.start(groups, List.of(0), RUN, view, FaultInjector.NONE, () -> { }).await(8);
    List<ReplicaSnapshot> replicas = ExecutorRegistry.replicas(RUN);
    assertEquals(1, replicas.size());
    assertEquals(-1, replicas.get(0).iteration(), "not at an iteration its parameters are not at");
  }

  /**
   * A catching up on hold reads the view it was given though the window has since dropped its snapshot and updates
   * (rounds went on before its tasks started); without the hold the same catching up finds them destroyed.
   */
  @Test
  void aCatchUpOnHoldFindsWhatTheWindowDroppedSinceItsView() {
    for (boolean onHold : new boolean[] {true, false}) {
      ExecutorRegistry.forget(RUN);
      idleReplica();
      try (DownlinkWindow window = new DownlinkWindow(SPARK.context(), 3, 2)) {
        window.start(0, models.get(0), ReplicaStart.SNAPSHOT);
        for (int t = 0; t < 4; t++) {
          window.publish(t, updates.get(t).value());
          window.maybeSnapshot(t + 1, models.get(t + 1));
        }
        DownlinkView at4 = window.view(4);   // the snapshot x_4
        Runnable release = onHold ? window.hold() : () -> { };
        for (int t = 4; t < 8; t++) {   // replaces the snapshot twice, drops updates 1..4
          window.publish(t, updates.get(t).value());
          window.maybeSnapshot(t + 1, models.get(t + 1));
        }
        ArrivingReplicas.start(groups, List.of(0), RUN, at4, FaultInjector.NONE, release).await(4);
        List<ReplicaSnapshot> replicas = ExecutorRegistry.replicas(RUN);
        assertEquals(1, replicas.size());
        if (onHold) {
          assertEquals(4, replicas.get(0).iteration());
          assertArrayEquals(models.get(4), replicas.get(0).parameters());
        } else {
          assertEquals(-1, replicas.get(0).iteration(), "the snapshot it reads was destroyed");
        }
      }
    }
  }
}
