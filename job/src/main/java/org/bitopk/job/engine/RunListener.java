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
   * At the end of every round, after its iteration record and (when the round ended an epoch) its epoch
   * record: a consistent cut where {@code state.iteration()} rounds are done and nothing of the next one has
   * started, so a checkpoint taken here resumes exactly.
   */
  default void afterRound(DriverState state) {}

  /** After the last iteration and the final evaluation, before the executor state is dropped. */
  default void onFinish(RunSummary summary, DriverState state) {}
}
