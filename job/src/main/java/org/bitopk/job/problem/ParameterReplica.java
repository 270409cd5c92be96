package org.bitopk.job.problem;

/**
 * A replica whose parameters are one float array it computes with directly (the quadratics, the synthetic
 * gradients): loading, updating and copying them are the same for all such objectives.
 */
public abstract class ParameterReplica<S> implements WorkerObjective<S> {
  /** The parameters, x. */
  protected final float[] x;

  protected ParameterReplica(int dimension) {
    this.x = new float[dimension];
  }

  @Override
  public int dimension() {
    return x.length;
  }

  @Override
  public void load(float[] parameters) {
    System.arraycopy(parameters, 0, x, 0, x.length);
  }

  @Override
  public void update(float[] parameters, int[] indices) {
    for (int j : indices) {
      x[j] = parameters[j];
    }
  }

  @Override
  public float[] modelParameters() {
    return x.clone();
  }
}
