package org.bitopk.job.engine;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Faults injected by tests into worker tasks, to prove that retried and speculative attempts leave the result
 * unchanged, and that a replica whose own x_0 differs from the driver's loads the snapshot instead. Inactive
 * unless a test sets {@link #failAfterStep} or {@link #perturbStartedModels} (local mode: tasks run in the test's
 * JVM) or the executor JVM has the system property {@code bitopk.test.slow-worker=ROUND:WORKER:MILLIS} or
 * {@code bitopk.test.perturb-start=true}; production runs never set any.
 */
public final class TestFaults {
  /** Fails attempt 0 of (round, worker) right after its state was advanced; null = off. */
  static volatile int[] failAfterStep;
  private static final int[] SLOW = parse(System.getProperty("bitopk.test.slow-worker"));
  /** Changes the last bit of every x_0 a replica builds, as another numeric library might; false = off. */
  static volatile boolean perturbStart = Boolean.getBoolean("bitopk.test.perturb-start");
  private static final AtomicLong LOCAL_TOKENS = new AtomicLong();

  private TestFaults() {}

  static void afterStep(int round, int worker) {
    int[] fail = failAfterStep;
    if (fail != null && fail[0] == round && fail[1] == worker && attempt() == 0) {
      throw new IllegalStateException("injected failure after the step of worker " + worker + ", round " + round);
    }
    if (SLOW != null && SLOW[0] == round && SLOW[1] == worker && attempt() == 0) {
      try {
        Thread.sleep(SLOW[2]);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("slow attempt interrupted", e);
      }
    }
  }

  /** Tests: fail attempt 0 of worker {@code worker} in round {@code round} once its state has advanced. */
  public static void failAfterStep(int round, int worker) {
    failAfterStep = new int[] {round, worker};
  }

  /** Tests: every x_0 a replica builds differs from the driver's in one bit, so replicas load the snapshot. */
  public static void perturbStartedModels() {
    perturbStart = true;
  }

  static void perturbStart(float[] x0) {
    if (perturbStart && x0.length > 0) {
      x0[0] = Float.intBitsToFloat(Float.floatToRawIntBits(x0[0]) ^ 1);
    }
  }

  public static void clear() {
    failAfterStep = null;
    perturbStart = Boolean.getBoolean("bitopk.test.perturb-start");
  }

  static long localToken() {
    return LOCAL_TOKENS.incrementAndGet() + (1L << 62);
  }

  private static int attempt() {
    org.apache.spark.TaskContext context = org.apache.spark.TaskContext.get();
    return context == null ? 0 : context.attemptNumber();
  }

  private static int[] parse(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    String[] parts = value.split(":");
    return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2])};
  }
}
