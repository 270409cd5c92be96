package org.bitopk.job.problem.quadratic;

import org.bitopk.job.problem.ObjectiveFactory;
import org.bitopk.job.problem.ParameterReplica;
import org.bitopk.job.problem.WorkerObjective;

/** Replicas of the counterexample's quadratic model: no data, full deterministic gradients. */
public final class QuadraticObjectiveFactory implements ObjectiveFactory<QuadraticShard> {
  private static final long serialVersionUID = 1L;
  private final int dimension;
  private final CounterexampleStart start;

  /** Replicas that cannot build x₀ themselves: they load the driver's. */
  public QuadraticObjectiveFactory(int dimension) {
    this(dimension, new CounterexampleStart.Unknown());
  }

  public QuadraticObjectiveFactory(int dimension, CounterexampleStart start) {
    if (dimension < 1) {
      throw new IllegalArgumentException("dimension must be >= 1, got " + dimension);
    }
    this.dimension = dimension;
    this.start = java.util.Objects.requireNonNull(start, "start");
  }

  @Override
  public WorkerObjective<QuadraticShard> create() {
    return new QuadraticObjective(dimension, start);
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
    private final CounterexampleStart start;

    QuadraticObjective(int dimension, CounterexampleStart start) {
      super(dimension);
      this.start = start;
    }

    @Override
    public java.util.Optional<float[]> initialParameters() {
      return start.build(x.length);
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
