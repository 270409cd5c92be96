package org.bitopk.job.engine;

/**
 * Hooks into the driver loop (checkpointing, reports, progress display, tests). Called on the driver thread
 * between Spark jobs, so implementations may read the driver state and even run Spark jobs of their own.
 */
public interface RunListener {
  default void onStart(DriverState state) {}

  /** After x_{t+1} has been computed and published; {@code state.iteration()} is t + 1. */
  default void onIteration(IterationRecord record, DriverState state) {}

  default void onEpoch(EpochRecord record, DriverState state) {}

  /**
   * Asked after every round's {@link #onIteration}: true ends the run after this round, as if it were the last
   * one planned (the partial epoch is closed and evaluated, {@link #onFinish} follows). Lets a caller bound a
   * run by something the plan does not know, such as a wall-clock budget.
   */
  default boolean stopRequested(DriverState state) {
    return false;
  }

  /**
   * At the end of every round, after its iteration record and (when the round ended an epoch) its epoch
   * record: a consistent cut where {@code state.iteration()} rounds are done and nothing of the next one has
   * started, so a checkpoint taken here resumes exactly.
   */
  default void afterRound(DriverState state) {}

  /** After the last iteration and the final evaluation, before the executor state is dropped. */
  default void onFinish(RunSummary summary, DriverState state) {}
}
