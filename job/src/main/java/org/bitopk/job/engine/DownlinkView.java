package org.bitopk.job.engine;

import java.io.Serializable;
import java.util.List;
import org.apache.spark.broadcast.Broadcast;

/**
 * What a task needs to bring a replica to x_t: handles (not values) of the broadcasts of the last few
 * downlink updates and of the latest dense snapshot. Executors fetch a broadcast's value only when a replica
 * actually needs it, so a replica that is up to date reads just the newest update.
 *
 * @param iteration t, the model version every replica must reach before computing its gradient
 * @param firstUpdate iteration of {@code updates.get(0)}: update s moves x_s to x_{s+1}; covers
 *     [firstUpdate, t)
 * @param updates SparseCodec-encoded downlink updates
 * @param snapshotIteration s of the snapshot, firstUpdate <= s <= t
 * @param snapshot x_s, dense
 */
public record DownlinkView(int iteration, int firstUpdate, List<Broadcast<byte[]>> updates,
    int snapshotIteration, Broadcast<float[]> snapshot) implements Serializable {

  public DownlinkView {
    if (firstUpdate + updates.size() != iteration) {
      throw new IllegalArgumentException("updates [" + firstUpdate + ", " + (firstUpdate + updates.size())
          + ") do not end at iteration " + iteration);
    }
    if (snapshotIteration > iteration || (snapshotIteration < firstUpdate && snapshotIteration != iteration)) {
      throw new IllegalArgumentException("snapshot of iteration " + snapshotIteration
          + " cannot be brought to " + iteration + " with updates from " + firstUpdate);
    }
    updates = List.copyOf(updates);
  }

  Broadcast<byte[]> update(int s) {
    return updates.get(s - firstUpdate);
  }
}
