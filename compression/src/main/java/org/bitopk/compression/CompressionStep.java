package org.bitopk.compression;

/** Immutable result of one {@link ErrorFeedback#step}: what was sent and how much of c it captured. */
public final class CompressionStep {

  private final SparseVector sent;
  private final int targetK;
  private final double compensatedNorm;
  private final double residualNorm;
  private final ValueFormat valueFormat;

  CompressionStep(SparseVector sent, int targetK, double compensatedNorm, double residualNorm,
      ValueFormat valueFormat) {
    this.valueFormat = valueFormat;
    this.sent = sent;
    this.targetK = targetK;
    this.compensatedNorm = compensatedNorm;
    this.residualNorm = residualNorm;
  }

  /**
   * What was sent: the selected coordinates of c with their exact values, or, for the compressors that send their own
   * values ({@code randomk:scaled}, {@code natural}), the scaled or quantised values.
   */
  public SparseVector sent() {
    return sent;
  }

  /**
   * The format the sent values are exact in, to encode them with ({@code SparseCodec.encode(sent(), valueFormat())}
   * decodes to {@link #sent} bit for bit): the step's requested format, or FP32 when a value did not fit it.
   */
  public ValueFormat valueFormat() {
    return valueFormat;
  }

  /** The k asked of the compressor. */
  public int targetK() {
    return targetK;
  }

  /** The number of coordinates sent. */
  public int achievedK() {
    return sent.nnz();
  }

  /** {@code ||c||_2} with {@code c = residual + scale * input}, accumulated in double. */
  public double compensatedNorm() {
    return compensatedNorm;
  }

  /**
   * {@code ||c - sent||_2}, computed as {@code sqrt(||c||^2 - ||sent||^2)} in double (the coordinates are disjoint,
   * so this is exact up to double rounding, about 1e-16 relative to {@code ||c||^2}); exactly 0 when every coordinate
   * is sent. For the compressors that send their own values it is {@code ||c - sent||_2} over the residual they
   * leave, and may exceed {@code ||c||}.
   */
  public double residualNorm() {
    return residualNorm;
  }

  /** {@code residualNorm / compensatedNorm}: the compression error δ of the thesis; 0 when c is zero. */
  public double delta() {
    return compensatedNorm == 0 ? 0 : residualNorm / compensatedNorm;
  }

  @Override
  public String toString() {
    return "CompressionStep{targetK=" + targetK + ", achievedK=" + sent.nnz() + ", compensatedNorm="
        + compensatedNorm + ", residualNorm=" + residualNorm + "}";
  }
}
