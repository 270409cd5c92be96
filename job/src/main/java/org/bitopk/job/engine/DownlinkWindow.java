package org.bitopk.job.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;

/**
 * Driver side of the downlink: one broadcast per iteration holding that iteration's encoded update (fetched only
 * by replicas more than one iteration behind: the newest travels inside the tasks), the last {@code capacity} of
 * them kept alive for replicas that fell behind, and a dense snapshot refreshed every
 * {@code snapshotEvery} iterations for replicas that fell further behind or are new. Older broadcasts are
 * destroyed, so the number of live broadcasts is bounded by capacity + 1 however long the run, and by the few
 * more a reader on hold keeps ({@link #hold}: a joining executor's catching up, beside a round or two).
 */
final class DownlinkWindow implements AutoCloseable {
  private final JavaSparkContext sc;
  private final int capacity;
  private final int snapshotEvery;
  private final ArrayDeque<Broadcast<byte[]>> updates = new ArrayDeque<>();
  /** The newest update's bytes, which the tasks carry inline ({@link DownlinkView}). */
  private byte[] latest = new byte[0];
  private int firstUpdate;
  private Broadcast<float[]> snapshot;
  private int snapshotIteration;
  private ReplicaStart start = ReplicaStart.SNAPSHOT;
  /** Readers that asked to keep the broadcasts of a view alive, and what was dropped while they read. */
  private int holds;
  private final List<Broadcast<?>> dropped = new ArrayList<>();

  DownlinkWindow(JavaSparkContext sc, int capacity, int snapshotEvery) {
    if (snapshotEvery < 1 || capacity < snapshotEvery) {
      throw new IllegalArgumentException("need 1 <= snapshot-every (" + snapshotEvery + ") <= update-window ("
          + capacity + ")");
    }
    this.sc = sc;
    this.capacity = capacity;
    this.snapshotEvery = snapshotEvery;
  }

  /**
   * Starts at iteration t0 with parameters x_{t0}. The snapshot is a broadcast like any other: executors fetch it
   * only when a replica reads it, so with {@code start} letting them build x_0 it costs the driver memory, not
   * bytes on the wire.
   */
  void start(int t0, float[] parameters, ReplicaStart start) {
    firstUpdate = t0;
    this.start = start;
    replaceSnapshot(t0, parameters);
  }

  /** Publishes the update of iteration t (x_t → x_{t+1}) and drops updates no longer needed. */
  void publish(int t, byte[] encodedUpdate) {
    if (t != firstUpdate + updates.size()) {
      throw new IllegalStateException("update of iteration " + t + " published out of order");
    }
    updates.addLast(sc.broadcast(encodedUpdate));
    latest = encodedUpdate;
    while (updates.size() > capacity) {
      destroy(updates.removeFirst());
      firstUpdate++;
    }
  }

  /** Refreshes the snapshot with x_t when it is snapshotEvery iterations old. */
  void maybeSnapshot(int t, float[] parameters) {
    if (t - snapshotIteration >= snapshotEvery) {
      replaceSnapshot(t, parameters);
    }
  }

  DownlinkView view(int t) {
    return DownlinkView.of(t, firstUpdate, new ArrayList<>(updates), latest, snapshotIteration, snapshot, start);
  }

  private void replaceSnapshot(int t, float[] parameters) {
    Broadcast<float[]> old = snapshot;
    snapshot = sc.broadcast(parameters.clone());
    snapshotIteration = t;
    if (old != null) {
      destroy(old);
    }
  }

  /**
   * Keeps every broadcast live now from being destroyed until the returned release runs (once; later runs do
   * nothing): for a job beside the rounds that reads a view after the rounds have moved on. The driver's thread
   * takes and releases holds, as it publishes.
   */
  Runnable hold() {
    holds++;
    AtomicBoolean released = new AtomicBoolean();
    return () -> {
      if (released.compareAndSet(false, true) && --holds == 0) {
        dropped.forEach(Broadcast::destroy);
        dropped.clear();
      }
    };
  }

  private void destroy(Broadcast<?> broadcast) {
    if (holds > 0) {
      dropped.add(broadcast);
    } else {
      broadcast.destroy();
    }
  }

  @Override
  public void close() {
    while (!updates.isEmpty()) {
      destroy(updates.removeFirst());
    }
    if (snapshot != null) {
      destroy(snapshot);
      snapshot = null;
    }
    dropped.forEach(Broadcast::destroy);   // the run ends: no reader is left
    dropped.clear();
  }
}
