package org.bitopk.job.engine;

import org.bitopk.compression.CompressionStep;
import org.bitopk.compression.Compressor;
import org.bitopk.compression.ErrorFeedback;
import org.bitopk.compression.SparseVector;
import org.bitopk.compression.ValueFormat;

/**
 * A worker's memory vector and the compression step that uses it: a residual e_i (EF14, or none) or a gradient
 * estimate g_i (EF21, Artemis). The state before the last step is kept until the next one, so a retried round can roll back
 * (see {@link WorkerState}).
 */
interface UplinkMemory {

  /** What one step sent, with ‖c‖ and ‖c − sent‖ for the metrics. */
  record Step(SparseVector sent, int targetK, int achievedK, double compensatedNorm, double residualNorm) {
    static Step of(CompressionStep s) {
      return new Step(s.sent(), s.targetK(), s.achievedK(), s.compensatedNorm(), s.residualNorm());
    }
  }

  /**
   * @param input the worker's gradient (or momentum), not modified
   * @param learningRate lr of the round: EF14 and none multiply the input by it; EF21 sends gradient units
   */
  Step step(float[] input, float learningRate, Compressor compressor, int targetK);

  void rollBack();

  boolean canRollBack();

  /** A copy of the memory vector (e_i, g_i, or zeros when nothing is kept). */
  float[] memory();

  /** EF14 (or plain compression): {@link ErrorFeedback}, c_i = e_i + lr·input. */
  final class Residual implements UplinkMemory {
    private final ErrorFeedback feedback;
    private final ValueFormat values;

    Residual(ErrorFeedback feedback, ValueFormat values) {
      this.feedback = feedback;
      this.values = values;
    }

    @Override
    public Step step(float[] input, float learningRate, Compressor compressor, int targetK) {
      return Step.of(feedback.step(input, learningRate, compressor, targetK, values));
    }

    @Override
    public void rollBack() {
      feedback.rollBack();
    }

    @Override
    public boolean canRollBack() {
      return feedback.canRollBack();
    }

    @Override
    public float[] memory() {
      return feedback.residual();
    }
  }
}
