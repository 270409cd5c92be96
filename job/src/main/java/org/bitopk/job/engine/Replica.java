package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.broadcast.Broadcast;
import org.bitopk.compression.SparseVector;
import org.bitopk.job.problem.WorkerObjective;

/**
 * One executor-side model replica: the canonical parameter vector (moved only by {@link SparseUpdates}),
 * the iteration it is at, and the objective that computes gradients with it. Used by one task at a time.
 */
final class Replica<S> {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Replica.class);

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

  /**
   * Outcome of {@link #catchUp}.
   *
   * @param resynchronised the replica loaded the dense snapshot
   * @param startRejected the replica built x_0 itself but its checksum was not the driver's: it loaded the snapshot
   *     instead
   */
  record CatchUp(int updatesApplied, boolean resynchronised, boolean startRejected) {
    CatchUp(int updatesApplied, boolean resynchronised) {
      this(updatesApplied, resynchronised, false);
    }
  }

  /** Where a replica that catches up finds the window's updates decoded: the executor's {@link RunState}. */
  interface DecodedUpdates {
    /** The update of round {@code iteration} of {@code view}'s window. */
    SparseVector decodedUpdate(int iteration, DownlinkView view);

    /** Whether update {@code iteration} is decoded here already, so that its broadcast need not be read. */
    boolean hasDecoded(int iteration);
  }

  /**
   * Brings the parameters to x_t: a new replica of a run that started at x_0 builds x_0 itself and keeps it when
   * its checksum is the driver's; then the window of updates, or the dense snapshot when the replica is too far
   * behind (or new, and without a usable x_0 of its own).
   */
  CatchUp catchUp(DownlinkView view, DecodedUpdates run, FaultInjector faults) {
    int t = view.iteration();
    if (iteration == t) {
      return new CatchUp(0, false);
    }
    boolean startRejected = false;
    if (iteration < 0 && view.startsFromBuiltModel()) {
      startRejected = startsFromBuiltModel(view.start().checksum(), faults) == BuiltStart.DIFFERS;
    }
    boolean resync = iteration < view.firstUpdate() || iteration > t;
    fetchAhead(view, run, resync, resync ? view.snapshotIteration() : iteration);
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
    return new CatchUp(applied, resync, startRejected);
  }

  /**
   * Fetches side by side the broadcasts the catch-up reads next: the snapshot when it loads it, and the updates
   * from {@code from} not decoded on this executor yet ({@link BroadcastPrefetch}).
   */
  private static void fetchAhead(DownlinkView view, DecodedUpdates run, boolean snapshot, int from) {
    List<Broadcast<?>> reads = new ArrayList<>();
    if (snapshot) {
      reads.add(view.snapshot());
    }
    for (int s = from; s < view.iteration(); s++) {
      if (!run.hasDecoded(s)) {
        view.updateBroadcast(s).ifPresent(reads::add);
      }
    }
    BroadcastPrefetch.values(reads);
  }

  /** What became of the x_0 a new replica builds. */
  private enum BuiltStart { TAKEN, DIFFERS, UNAVAILABLE }

  /**
   * Takes the x_0 the objective built from the run's seed and model when its checksum is {@code expected}, the
   * driver's; else leaves the replica new, for the caller to load the snapshot, and says so in one line when the
   * checksum differs.
   */
  private BuiltStart startsFromBuiltModel(long expected, FaultInjector faults) {
    Optional<float[]> built = objective.initialParameters();
    if (built.isEmpty()) {
      return BuiltStart.UNAVAILABLE;
    }
    float[] x0 = built.get();
    faults.builtStart(x0);
    long checksum = x0.length == parameters.length ? ParameterChecksum.of(x0) : ~expected;
    if (checksum != expected) {
      LOG.warn("x_0 built on this executor has checksum {}, the driver's {} (another model file or numeric "
          + "library?); this replica loads the driver's dense snapshot ({} bytes)", Long.toHexString(checksum),
          Long.toHexString(expected), (long) Float.BYTES * parameters.length);
      return BuiltStart.DIFFERS;
    }
    System.arraycopy(x0, 0, parameters, 0, parameters.length);
    objective.load(parameters);
    iteration = 0;
    return BuiltStart.TAKEN;
  }
}
