package org.bitopk.job.problem.quadratic;

import org.bitopk.job.problem.ObjectiveFactory;
import org.bitopk.job.problem.ParameterReplica;
import org.bitopk.job.problem.WorkerObjective;

/** Replicas of the counterexample's quadratic model: no data, full deterministic gradients. */
public final class QuadraticObjectiveFactory implements ObjectiveFactory<QuadraticShard> {
  private static final long serialVersionUID = 1L;
  private final int dimension;

  public QuadraticObjectiveFactory(int dimension) {
    if (dimension < 1) {
      throw new IllegalArgumentException("dimension must be >= 1, got " + dimension);
    }
    this.dimension = dimension;
  }

  @Override
  public WorkerObjective<QuadraticShard> create() {
    return new QuadraticObjective(dimension);
  }

  @Override
  public int dimension() {
    return dimension;
  }

  @Override
  public int[] statisticsIndices() {
    return new int[0];
  }

  @Override
  public int workerId(QuadraticShard shard) {
    return shard.workerId();
  }

  /** ∇f_i(x) = x − a_i·1 computed in float, f_i in double. */
  static final class QuadraticObjective extends ParameterReplica<QuadraticShard> {
    QuadraticObjective(int dimension) {
      super(dimension);
    }

    @Override
    public double gradient(QuadraticShard shard, int epoch, int batchIndex, float[] gradientOut) {
      double loss = 0;
      float a = shard.center();
      for (int j = 0; j < x.length; j++) {
        float diff = x[j] - a;
        gradientOut[j] = diff;
        loss += 0.5 * (double) diff * diff;
      }
      return loss;
    }
  }
}
