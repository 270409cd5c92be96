package org.bitopk.job.problem.synthetic;

import java.io.Serializable;

/**
 * Worker i of the synthetic-gradient problem: it holds no data, only its id (its gradients come from the seed). A
 * plain class rather than a record because Spark's Kryo 4 cannot serialize records.
 */
public final class SyntheticGradientShard implements Serializable {
  private static final long serialVersionUID = 1L;
  private final int workerId;

  public SyntheticGradientShard(int workerId) {
    this.workerId = workerId;
  }

  public int workerId() {
    return workerId;
  }
}
