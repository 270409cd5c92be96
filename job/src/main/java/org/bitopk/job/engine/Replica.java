package org.bitopk.job.engine;

import org.bitopk.compression.SparseVector;
import org.bitopk.job.problem.WorkerObjective;

/**
 * One executor-side model replica: the canonical parameter vector (moved only by {@link SparseUpdates}),
 * the iteration it is at, and the objective that computes gradients with it. Used by one task at a time.
 */
final class Replica<S> {
  final WorkerObjective<S> objective;
  final float[] parameters;
  final float[] gradient;
  /** The iteration t whose x_t the parameters hold; -1 before the first load. */
  int iteration = -1;

  Replica(WorkerObjective<S> objective) {
    this.objective = objective;
    this.parameters = new float[objective.dimension()];
    this.gradient = new float[objective.dimension()];
  }

  /** Outcome of {@link #catchUp}. */
  record CatchUp(int updatesApplied, boolean resynchronised) {}

  /** Brings the parameters to x_t from the window of updates, or from the snapshot if too far behind. */
  CatchUp catchUp(DownlinkView view, RunState run) {
    int t = view.iteration();
    if (iteration == t) {
      return new CatchUp(0, false);
    }
    boolean resync = iteration < view.firstUpdate() || iteration > t;
    if (resync) {
      float[] snapshot = view.snapshot().value();
      if (snapshot.length != parameters.length) {
        throw new IllegalStateException("snapshot has " + snapshot.length + " parameters, replica " + parameters.length);
      }
      System.arraycopy(snapshot, 0, parameters, 0, parameters.length);
      objective.load(parameters);
      iteration = view.snapshotIteration();
    }
    int applied = 0;
    for (int s = iteration; s < t; s++) {
      SparseVector update = run.decodedUpdate(s, view);
      SparseUpdates.apply(parameters, update);
      objective.update(parameters, update.indices());
      applied++;
    }
    iteration = t;
    return new CatchUp(applied, resync);
  }
}
