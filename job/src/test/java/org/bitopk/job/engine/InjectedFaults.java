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
    private static final long serialVersionUID = 1L;
    private final int round;
    private final int worker;
    private final long millis;

    /** @param roundWorkerMillis "ROUND:WORKER:MILLIS" */
    public SlowWorker(String roundWorkerMillis) {
      String[] parts = roundWorkerMillis.split(":");
      this.round = Integer.parseInt(parts[0]);
      this.worker = Integer.parseInt(parts[1]);
      this.millis = Long.parseLong(parts[2]);
    }

    @Override
    public void afterStep(int round, int worker, int attempt) {
      if (round == this.round && worker == this.worker && attempt == 0) {
        try {
          Thread.sleep(millis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("slow attempt interrupted", e);
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
