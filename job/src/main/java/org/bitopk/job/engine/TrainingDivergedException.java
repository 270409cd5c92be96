package org.bitopk.job.engine;

/** The loss or a gradient became NaN or infinite: training cannot continue with these settings. */
public final class TrainingDivergedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public TrainingDivergedException(String message, Throwable cause) {
    super(message, cause);
  }
}
