package org.bitopk.job.engine;

import java.io.Serializable;
import java.util.List;
import java.util.Optional;
import org.apache.spark.broadcast.Broadcast;

/**
 * What a task needs to bring a replica to x_t: the newest downlink update itself, handles (not values) of the
 * broadcasts of the few updates before it, and the handle of the latest dense snapshot. The newest update
 * travels inside the round's task binary, which Spark broadcasts once per executor anyway, so a replica that is
 * up to date fetches no broadcast at all (a separate broadcast cost every executor four round trips and about
 * 2 KB more per round: block locations, the fetch, the block's registration, its removal). Executors fetch an
 * older update's or the snapshot's value only when a replica actually needs it.
 *
 * @param iteration t, the model version every replica must reach before computing its gradient
 * @param firstUpdate iteration of the oldest update the view reaches: update s moves x_s to x_{s+1}; the view
 *     covers [firstUpdate, t)
 * @param earlierUpdates SparseCodec-encoded updates [firstUpdate, t − 1), as broadcasts
 * @param latestUpdate the SparseCodec-encoded update t − 1, or empty when the view holds no update
 *     (t == firstUpdate)
 * @param snapshotIteration s of the snapshot, firstUpdate <= s <= t
 * @param snapshot x_s, dense
 * @param start whether a new replica may build x_0 itself (and its checksum), when the window starts at update 0
 */
public record DownlinkView(int iteration, int firstUpdate, List<Broadcast<byte[]>> earlierUpdates,
    byte[] latestUpdate, int snapshotIteration, Broadcast<float[]> snapshot, ReplicaStart start)
    implements Serializable {

  public DownlinkView {
    int covered = earlierUpdates.size() + (latestUpdate.length > 0 ? 1 : 0);
    if (firstUpdate + covered != iteration || (latestUpdate.length == 0 && !earlierUpdates.isEmpty())) {
      throw new IllegalArgumentException("updates [" + firstUpdate + ", " + (firstUpdate + covered)
          + ") with " + (latestUpdate.length > 0 ? "" : "no ") + "latest update do not end at iteration "
          + iteration);
    }
    if (snapshotIteration > iteration || (snapshotIteration < firstUpdate && snapshotIteration != iteration)) {
      throw new IllegalArgumentException("snapshot of iteration " + snapshotIteration
          + " cannot be brought to " + iteration + " with updates from " + firstUpdate);
    }
    earlierUpdates = List.copyOf(earlierUpdates);
    java.util.Objects.requireNonNull(start, "start");
  }

  /** Whether a new replica may start from the x_0 it builds: the run started here and no update was dropped. */
  boolean startsFromBuiltModel() {
    return start.built() && firstUpdate == 0;
  }

  /**
   * The view of the updates [firstUpdate, t) whose broadcasts are {@code updates}, the newest of which,
   * {@code latest}, travels inline.
   */
  static DownlinkView of(int iteration, int firstUpdate, List<Broadcast<byte[]>> updates, byte[] latest,
      int snapshotIteration, Broadcast<float[]> snapshot, ReplicaStart start) {
    if (updates.isEmpty()) {
      return new DownlinkView(iteration, firstUpdate, updates, new byte[0], snapshotIteration, snapshot, start);
    }
    return new DownlinkView(iteration, firstUpdate, updates.subList(0, updates.size() - 1), latest,
        snapshotIteration, snapshot, start);
  }

  /** The broadcast of update s, firstUpdate <= s < t; empty for the newest, which travels inline. */
  Optional<Broadcast<byte[]>> updateBroadcast(int s) {
    return s == iteration - 1 ? Optional.empty() : Optional.of(earlierUpdates.get(s - firstUpdate));
  }

  /** The encoded update s, firstUpdate <= s < t: the inline one or an earlier update's broadcast value. */
  byte[] encodedUpdate(int s) {
    return s == iteration - 1 ? latestUpdate : earlierUpdates.get(s - firstUpdate).value();
  }
}
