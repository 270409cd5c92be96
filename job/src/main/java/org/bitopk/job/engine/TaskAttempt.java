package org.bitopk.job.engine;

import java.util.Optional;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.storage.BlockManagerId;
import scala.collection.JavaConverters;

/**
 * One Spark attempt of a round's task, and its claim on the states of the workers it runs. Spark may run a round's
 * task more than once (a retry, a speculative copy); this class decides which worker state an attempt may step
 * ({@link WorkerState#admit}), makes a speculative copy without the state wait for the original, and tags the
 * states it advances with its token, so the driver can tell later which attempt's state it used.
 */
final class TaskAttempt {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(TaskAttempt.class);

  private final int round;
  /** Spark's id of this attempt (unique in the application); outside Spark, a fresh number. */
  private final long token;
  /** This executor's block manager address, as the driver's status tracker names executors. */
  private final String executor;
  private final int attemptNumber;
  /** Per worker, the attempt whose state after the previous round the driver used. */
  private final long[] expectedTokens;
  private final StateLocations locations;
  private final UplinkSettings uplink;
  private final FaultInjector faults;

  private TaskAttempt(int round, long token, String executor, int attemptNumber, long[] expectedTokens,
      StateLocations locations, UplinkSettings uplink, FaultInjector faults) {
    this.round = round;
    this.token = token;
    this.executor = executor;
    this.attemptNumber = attemptNumber;
    this.expectedTokens = expectedTokens;
    this.locations = locations;
    this.uplink = uplink;
    this.faults = faults;
  }

  /** The attempt running in this thread (Spark's task context; a local stand-in outside Spark). */
  static TaskAttempt current(int round, long[] expectedTokens, StateLocations locations, UplinkSettings uplink,
      FaultInjector faults) {
    TaskContext context = TaskContext.get();
    SparkEnv env = SparkEnv.get();
    return new TaskAttempt(round,
        context != null ? context.taskAttemptId() : localToken(),
        env == null ? "local" : env.blockManager().blockManagerId().hostPort(),
        context == null ? 0 : context.attemptNumber(), expectedTokens, locations, uplink, faults);
  }

  /** Outside Spark: a random token above any of Spark's attempt ids (which count from 0), never {@code INITIAL}. */
  private static long localToken() {
    return java.util.concurrent.ThreadLocalRandom.current().nextLong(1L << 62, Long.MAX_VALUE);
  }

  /**
   * The worker state this attempt steps, as {@link #admit} found it; whether its residual was lost, or rolled back;
   * and the bytes of the state a departed executor handed over through the driver when that is where it came from (0
   * otherwise): the worker moved to this executor without a placement of the driver's, in a round already under way
   * when its executor was told to go.
   */
  record Admitted(WorkerState state, boolean residualLost, boolean rolledBack, long handedOverBytes) {}

  int round() {
    return round;
  }

  String executor() {
    return executor;
  }

  /**
   * A second attempt without the worker's state while the executor that holds it is alive is most likely a
   * speculative copy of a slow original: it waits for the original (see {@link #awaitOriginalAttempt}).
   */
  void deferIfStateElsewhere(RunState run, int workerId) {
    WorkerState present = run.worker(workerId);
    if ((present == null || !present.usableFor(round, expectedTokens[workerId]))
        && locations.shouldDefer(workerId, executor, attemptNumber)) {
      awaitOriginalAttempt(workerId);
    }
  }

  /**
   * The state of worker {@code workerId} before this round, rolled back when another attempt took the round
   * already, fresh when it is missing or unusable. Call holding {@link RunState#lock}.
   */
  Admitted admit(String runId, RunState run, int workerId, int dimension) {
    WorkerState state = run.worker(workerId);
    long expected = expectedTokens[workerId];
    WorkerState.Admission admission = state == null ? null : state.admit(round, expected);
    if (admission == WorkerState.Admission.OBSOLETE) {
      throw new IllegalStateException("round " + round + " of worker " + workerId + " is obsolete on this executor "
          + "(its state is at round " + state.round() + "): a duplicate attempt of a finished round");
    }
    boolean residualLost = false;
    long handedOverBytes = 0;
    if (state == null || admission == WorkerState.Admission.UNUSABLE) {
      // New executor, a state more than one round old, or one advanced by an attempt the driver discarded.
      boolean firstRound = state == null && round == 0 && expected == WorkerState.INITIAL;
      // the state a departed executor handed over, if the driver has it: the groups' move missed that executor
      Optional<WorkerMemory> handed = firstRound ? Optional.empty()
          : StateHandover.ask(runId, workerId, round - 1, expected);
      residualLost = !firstRound && handed.isEmpty();
      handedOverBytes = handed.map(WorkerMemory::bytes).orElse(0L);
      state = handed.isPresent() ? WorkerState.restored(uplink, dimension, round, handed.get())
          : WorkerState.fresh(uplink, workerId, dimension, round);
      run.putWorker(workerId, state);
    }
    return new Admitted(state, residualLost, admission == WorkerState.Admission.ROLLED_BACK, handedOverBytes);
  }

  /**
   * Tags the state as advanced by this attempt, right after the step: from here on it is the state after this
   * round, whatever happens to the attempt. Returns the token the driver passes back next round.
   */
  long commit(WorkerState state, int workerId) {
    state.commit(round, token);
    faults.afterStep(round, workerId, attemptNumber);
    return token;
  }

  /**
   * Waits for Spark to kill this copy once the original succeeds. It goes on from a fresh state, the worker counted
   * as lost, as soon as the driver no longer knows the holding executor (it was lost during the round: this attempt
   * is a retry), or after the defer time (the original is stuck).
   */
  private void awaitOriginalAttempt(int workerId) {
    TaskContext context = TaskContext.get();
    String holder = locations.holders()[workerId];
    LOG.warn("worker {} of round {}: attempt {} lacks the worker's state and defers to the original attempt on "
        + "{} for up to {} ms", workerId, round, context.attemptNumber(), holder, locations.deferMillis());
    long start = System.nanoTime();
    long deadline = start + locations.deferMillis() * 1_000_000L;
    long nextCheck = start;
    while (System.nanoTime() < deadline) {
      context.killTaskIfInterrupted();
      if (System.nanoTime() >= nextCheck) {
        if (!registered(holder)) {
          LOG.warn("worker {} of round {}: the executor {} holding its state is gone; starting afresh", workerId,
              round, holder);
          return;
        }
        nextCheck = System.nanoTime() + 500_000_000L;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        context.killTaskIfInterrupted();
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while worker " + workerId + " of round " + round
            + " deferred to its original attempt", e);
      }
    }
  }

  /** Whether the driver still knows the executor {@code hostPort} (it forgets a lost executor at once). */
  private static boolean registered(String hostPort) {
    SparkEnv env = SparkEnv.get();
    if (env == null) {
      return false;
    }
    for (BlockManagerId id : JavaConverters.mapAsJavaMapConverter(env.blockManager().master().getMemoryStatus())
        .asJava().keySet()) {
      if (id.hostPort().equals(hostPort)) {
        return true;
      }
    }
    return false;
  }
}
