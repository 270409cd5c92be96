package org.bitopk.job.engine;

/**
 * The faults the tests inject ({@link FaultInjector}): each with a public constructor taking its argument as text, so
 * that a job started by spark-submit can name it in the Spark setting {@value FaultInjector#SETTING}.
 */
public final class InjectedFaults {
  private InjectedFaults() {}

  /** Attempt 0 of worker {@code WORKER} in round {@code ROUND} fails right after its step ("ROUND:WORKER"). */
  public static final class FailAfterStep implements FaultInjector {
    private static final long serialVersionUID = 1L;
    private final int round;
    private final int worker;

    public FailAfterStep(String roundAndWorker) {
      String[] parts = roundAndWorker.split(":");
      this.round = Integer.parseInt(parts[0]);
      this.worker = Integer.parseInt(parts[1]);
    }

    @Override
    public void afterStep(int round, int worker, int attempt) {
      if (round == this.round && worker == this.worker && attempt == 0) {
        throw new IllegalStateException("injected failure after the step of worker " + worker + ", round " + round);
      }
    }
  }

  /** Attempt 0 of worker {@code WORKER} in round {@code ROUND} sleeps {@code MILLIS} after its step. */
  public static final class SlowWorker implements FaultInjector {
    private static final long serialVersionUID = 2L;
    /** Per slow stretch: first round, last round, worker, milliseconds. */
    private final long[][] slow;

    /**
     * @param roundWorkerMillis "ROUND:WORKER:MILLIS" or "FIRST-LAST:WORKER:MILLIS" (each of those rounds), or
     *     several separated by commas
     */
    public SlowWorker(String roundWorkerMillis) {
      this.slow = java.util.Arrays.stream(roundWorkerMillis.split(",")).map(one -> {
        String[] parts = one.split(":");
        String[] rounds = parts[0].split("-");
        return new long[] {Long.parseLong(rounds[0]), Long.parseLong(rounds[rounds.length - 1]),
            Long.parseLong(parts[1]), Long.parseLong(parts[2])};
      }).toArray(long[][]::new);
    }

    @Override
    public void afterStep(int round, int worker, int attempt) {
      for (long[] s : slow) {
        if (round >= s[0] && round <= s[1] && worker == s[2] && attempt == 0) {
          try {
            Thread.sleep(s[3]);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("slow attempt interrupted", e);
          }
        }
      }
    }
  }

  /** Every x_0 a replica builds differs from the driver's in its last bit, as another numeric library's might. */
  public static final class PerturbedStart implements FaultInjector {
    private static final long serialVersionUID = 1L;

    public PerturbedStart(String ignored) {}

    @Override
    public void builtStart(float[] x0) {
      if (x0.length > 0) {
        x0[0] = Float.intBitsToFloat(Float.floatToRawIntBits(x0[0]) ^ 1);
      }
    }
  }
}
