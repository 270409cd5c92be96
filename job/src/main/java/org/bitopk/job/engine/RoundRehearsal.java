package org.bitopk.job.engine;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.bitopk.compression.SparseCodec;
import org.bitopk.compression.SparseVector;
import org.bitopk.job.problem.ObjectiveFactory;

/**
 * A joining executor rehearses the round before its first real one, on a replica of its run's pool: the replica
 * loads a dense snapshot and applies an update, each fetched as a broadcast as in a new replica's first catch-up;
 * then the moving groups' workers take the round's steps over and over on their own shards (the gradient, the
 * memory's step with the run's compressor, the message encoded and decoded and applied to the replica), their
 * states travelling the way a moved state does (saved, Java-serialized as in a task's partition, restored), and the
 * last step's report goes back as the task's result, as a round's does. A new JVM runs that code interpreted at
 * first and compiles it as it goes: rehearsed while the run's rounds go on elsewhere ({@link GroupsInPreparation}),
 * the move's round finds it compiled, rather than waiting for a JVM that runs it for the first time (measured on
 * the network lab: such a first task took 250-330 ms against rounds of 60 ms).
 *
 * <p>It shares nothing with the run but the replica, which it leaves new ({@link Replica#iteration} −1), so that
 * the first real round loads x_t as a new replica does: the snapshot and update are the rehearsal's own, each
 * worker's state here is {@link WorkerState#fresh} and dropped, its compressor drawn from the worker's seed as the
 * run's is but stepped only here, and the replica's parameters are overwritten by that load. So the run's bits are
 * the same with or without it.
 */
public final class RoundRehearsal<S> {
  /** Passes at most; a pass is every worker of the group once. */
  static final int MAX_PASSES = 40;
  /**
   * Passes at most in a JVM that already rehearsed {@link #alone} (the executor's warm-up agent): its code is
   * compiled, and the first passes only meet the run's model and shards.
   */
  static final int WARM_PASSES = 3;
  /** The rehearsal {@link #alone} runs or ran in this JVM: done with whether it ran to its end. */
  private static final AtomicReference<Optional<CompletableFuture<Boolean>>> WARM_UP =
      new AtomicReference<>(Optional.empty());
  /** How long a run's rehearsal waits for one {@link #alone} still running, which compiles the same code. */
  static final long WARM_UP_WAIT_MILLIS = 30_000;
  /** How long the passes after the first may take at most: the groups' building waits for them. */
  static final long MAX_MILLIS = 1_500;
  /** The rehearsal's learning rate: small, so that the replica does not run away from the shards. */
  private static final float LEARNING_RATE = 0.01f;

  private final ObjectiveFactory<S> factory;
  private final UplinkSettings uplink;

  private final int maxPasses;
  private final long maxMillis;

  /** A run's rehearsal: its passes as {@link #runPasses} says when it runs. */
  RoundRehearsal(ObjectiveFactory<S> factory, UplinkSettings uplink) {
    this(factory, uplink, 0, MAX_MILLIS);
  }

  /** {@code maxPasses} 0: as {@link #runPasses} says. */
  private RoundRehearsal(ObjectiveFactory<S> factory, UplinkSettings uplink, int maxPasses, long maxMillis) {
    this.factory = factory;
    this.uplink = uplink;
    this.maxPasses = maxPasses;
    this.maxMillis = maxMillis;
  }

  /**
   * Rehearses {@code passes} passes of the round of {@code shards}' workers on a replica of its own, from the
   * replica's initial parameters: a JVM's warm-up before it has a run (the executor's warm-up agent), the code
   * compiled and the classes loaded that a run's rehearsal and first round then find so. Returns the last step's
   * report, for the caller to send through the task results' serializer.
   */
  public static <S> WorkerReport alone(ObjectiveFactory<S> factory, UplinkSettings uplink, List<S> shards,
      int passes) {
    Replica<S> replica = new Replica<>(factory.create());
    float[] x = replica.objective.initialParameters().orElseGet(() -> new float[factory.dimension()]);
    byte[] update = noUpdate(factory.dimension(), uplink);
    CompletableFuture<Boolean> ended = new CompletableFuture<>();
    WARM_UP.set(Optional.of(ended));
    try {
      WorkerReport last = new RoundRehearsal<>(factory, uplink, passes, Long.MAX_VALUE)
          .run(replica, shards, () -> x, () -> update).lastReport();
      ended.complete(true);
      return last;
    } finally {
      ended.complete(false);   // failed: a run's rehearsal takes all its passes
    }
  }

  /** A rehearsal's update to catch up with: one coordinate by zero, encoded as the run's are. */
  static byte[] noUpdate(int dimension, UplinkSettings uplink) {
    return SparseCodec.encodeExactly(SparseVector.of(dimension, new int[] {0}, new float[] {0f}), uplink.values());
  }

  /** Whether a rehearsal {@link #alone} is running in this JVM. */
  static boolean warmingUp() {
    return WARM_UP.get().map(f -> !f.isDone()).orElse(false);
  }

  /**
   * A run's rehearsal's passes: {@value #WARM_PASSES} once this JVM rehearsed {@link #alone} to its end (waiting
   * for one still running, at most {@value #WARM_UP_WAIT_MILLIS} ms), else {@value #MAX_PASSES}.
   */
  static int runPasses() {
    Optional<CompletableFuture<Boolean>> warmUp = WARM_UP.get();
    if (warmUp.isEmpty()) {
      return MAX_PASSES;
    }
    try {
      return warmUp.get().get(WARM_UP_WAIT_MILLIS, TimeUnit.MILLISECONDS) ? WARM_PASSES : MAX_PASSES;
    } catch (TimeoutException | ExecutionException e) {
      return MAX_PASSES;
    } catch (InterruptedException e) {   // the building was cancelled
      Thread.currentThread().interrupt();
      return MAX_PASSES;
    }
  }

  /** What a rehearsal did: its passes, and the report of its last step. */
  record Result(int passes, WorkerReport lastReport) {}

  /**
   * Rehearses the round of {@code shards}' workers (at least one) on {@code replica}, which it leaves new, from the
   * dense {@code snapshot} and the encoded {@code update} (a broadcast's values, read here as a catch-up reads them).
   */
  Result run(Replica<S> replica, List<S> shards, Supplier<float[]> snapshot, Supplier<byte[]> update) {
    if (shards.isEmpty()) {
      throw new IllegalArgumentException("a rehearsal needs a worker's shard");
    }
    int limit = maxPasses > 0 ? maxPasses : runPasses();
    int dimension = replica.parameters.length;
    List<WorkerState> states = new ArrayList<>();
    for (S shard : shards) {
      states.add(WorkerState.fresh(uplink, factory.workerId(shard), dimension, 0));
    }
    long deadline = Long.MAX_VALUE;
    int passes = 0;
    WorkerReport last = null;
    try {
      long start = System.nanoTime();
      float[] x = snapshot.get();
      System.arraycopy(x, 0, replica.parameters, 0, Math.min(x.length, dimension));
      replica.objective.load(replica.parameters);
      SparseVector caughtUp = SparseCodec.decode(update.get());
      SparseUpdates.apply(replica.parameters, caughtUp);
      replica.objective.update(replica.parameters, caughtUp.indices());
      Replica.CatchUp catchUp = new Replica.CatchUp(1, true);
      long catchUpNanos = System.nanoTime() - start;
      while (passes < limit && System.nanoTime() < deadline) {
        long checksum = ParameterChecksum.of(replica.parameters);
        for (int i = 0; i < shards.size(); i++) {
          WorkerReport.Builder report = step(replica, shards.get(i), states, i, passes);
          last = report.task(0, checksum).catchUp(catchUpNanos, catchUp).build();
        }
        if (passes++ == 0) {   // the first pass loads the classes: it alone always runs to its end
          deadline = maxMillis == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime() + maxMillis * 1_000_000L;
        }
      }
    } finally {
      replica.iteration = -1;
    }
    return new Result(passes, last);
  }

  /** One worker's step, as {@code WorkerTask} takes it; its state then moves as a moved state does. */
  private WorkerReport.Builder step(Replica<S> replica, S shard, List<WorkerState> states, int i, int pass) {
    int worker = factory.workerId(shard);
    WorkerState state = states.get(i);
    long begin = System.nanoTime();
    double loss = replica.objective.gradient(shard, 0, 0, replica.gradient);
    long computed = System.nanoTime();
    UplinkMemory.Step step = state.step(replica.gradient, LEARNING_RATE, uplink, worker, pass);
    state.commit(pass, pass + 1L);
    byte[] message = SparseCodec.encodeExactly(step.sent(), uplink.values());
    SparseVector update = SparseCodec.decode(message);
    SparseUpdates.apply(replica.parameters, update);
    replica.objective.update(replica.parameters, update.indices());
    states.set(i, WorkerState.restored(uplink, replica.parameters.length, pass + 1, travelled(state.saved(worker))));
    return new WorkerReport.Builder(worker, pass, "rehearsal").message(message, new float[0], loss, step)
        .attempt(false, false, pass + 1L).dense(null, null).times(computed - begin, System.nanoTime() - computed);
  }

  /** {@code memory} after a trip through Java serialization, as inside a task's partition. */
  private static WorkerMemory travelled(WorkerMemory memory) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
        out.writeObject(memory);
      }
      try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
        return (WorkerMemory) in.readObject();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }
}
