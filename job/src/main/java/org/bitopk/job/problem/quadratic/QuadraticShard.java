package org.bitopk.job.problem.quadratic;

import java.io.Serializable;

/**
 * Worker i's part of the counterexample: f_i(x) = ½‖x − a_i·1‖². A plain class rather than a record because
 * Spark's Kryo 4 cannot serialize records.
 */
public final class QuadraticShard implements Serializable {
  private static final long serialVersionUID = 1L;
  private final int workerId;
  private final float center;

  public QuadraticShard(int workerId, float center) {
    this.workerId = workerId;
    this.center = center;
  }

  public int workerId() {
    return workerId;
  }

  public float center() {
    return center;
  }
}
