package org.bitopk.job.problem;

import java.io.Serializable;

/**
 * Small serializable description shipped to executors inside the task closure: it creates replicas there.
 * It must never hold data or parameters (the task closure is serialized for every iteration).
 */
public interface ObjectiveFactory<S> extends Serializable {
  /** Creates a new replica; its parameters are undefined until {@link WorkerObjective#load} is called. */
  WorkerObjective<S> create();

  int dimension();

  /**
   * Ascending coordinates that hold running statistics rather than trainable weights (batch-norm mean and
   * variance). They are averaged densely, never compressed and never scaled by the learning rate.
   */
  int[] statisticsIndices();

  /** Identifies the worker that owns a shard. */
  int workerId(S shard);
}
