package org.bitopk.job.engine;

import java.io.Serializable;

/**
 * How a new replica gets the model it starts from. At the start of a run the executors build x_0 themselves, from
 * the run's seed and model configuration, and keep it only when its checksum is the driver's: no dense model
 * travels then. A resumed run's x_t comes from its checkpoint, which only the driver has: new replicas load the
 * dense snapshot, as they always do when they fall behind the window of updates or are lost.
 *
 * @param built whether new replicas may build x_0 on their executors
 * @param checksum {@link ParameterChecksum} of the driver's x_0 when {@code built}; 0 otherwise
 */
public record ReplicaStart(boolean built, long checksum) implements Serializable {
  /** New replicas load the dense snapshot. */
  public static final ReplicaStart SNAPSHOT = new ReplicaStart(false, 0L);

  /** New replicas build x_0 and keep it when its checksum is that of the driver's {@code x0}. */
  public static ReplicaStart builtOnExecutors(float[] x0) {
    return new ReplicaStart(true, ParameterChecksum.of(x0));
  }
}
