package org.bitopk.job.problem.synthetic;

import org.bitopk.job.problem.ObjectiveFactory;
import org.bitopk.job.problem.ParameterReplica;
import org.bitopk.job.problem.WorkerObjective;

/** Replicas of the synthetic-gradient problem: f_{i,t}(x) = ⟨g_{i,t}, x⟩ with g_{i,t} from {@link SyntheticGradients}. */
public final class SyntheticGradientObjectiveFactory implements ObjectiveFactory<SyntheticGradientShard> {
  private static final long serialVersionUID = 1L;
  private final SyntheticGradients gradients;
  private final int roundsPerEpoch;

  SyntheticGradientObjectiveFactory(SyntheticGradients gradients, int roundsPerEpoch) {
    this.gradients = gradients;
    this.roundsPerEpoch = roundsPerEpoch;
  }

  @Override
  public WorkerObjective<SyntheticGradientShard> create() {
    return new LinearObjective(gradients, roundsPerEpoch);
  }

  @Override
  public int dimension() {
    return gradients.dimension();
  }

  @Override
  public int[] statisticsIndices() {
    return new int[0];
  }

  @Override
  public int workerId(SyntheticGradientShard shard) {
    return shard.workerId();
  }

  /** A replica: the parameters, and the round's gradient written in one pass over them. */
  static final class LinearObjective extends ParameterReplica<SyntheticGradientShard> {
    private final SyntheticGradients gradients;
    private final int roundsPerEpoch;

    LinearObjective(SyntheticGradients gradients, int roundsPerEpoch) {
      super(gradients.dimension());
      this.gradients = gradients;
      this.roundsPerEpoch = roundsPerEpoch;
    }

    /** x_0 = 0, as {@link SyntheticGradientProblem#initialParameters()}. */
    @Override
    public java.util.Optional<float[]> initialParameters() {
      return java.util.Optional.of(new float[x.length]);
    }

    @Override
    public double gradient(SyntheticGradientShard shard, int epoch, int batchIndex, float[] gradientOut) {
      return gradients.write(shard.workerId(), (long) epoch * roundsPerEpoch + batchIndex, x, gradientOut);
    }
  }
}
