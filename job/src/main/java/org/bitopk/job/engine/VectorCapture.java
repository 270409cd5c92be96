package org.bitopk.job.engine;

import java.io.IOException;

/**
 * Receives, on the driver, the compensated vectors c_i = e_i + lr·g_i of the rounds the plan lists
 * ({@link RunPlan#captureRounds()}): exactly what each worker's uplink compressor was applied to.
 *
 * <p>The vectors travel to the driver inside the round's worker reports, and only the reports of the attempts the
 * driver accepted reach it: a retried or speculative task attempt can therefore never leave a vector that the run
 * did not use. The engine writes nothing itself; the implementation decides where the vectors go.
 */
public interface VectorCapture {

  /**
   * One worker's compensated vector of one captured round, called in worker order before the round's update is
   * applied.
   *
   * @param round the 1-based round (iteration t = round − 1)
   * @param worker the worker id, 0-based
   * @param learningRate the round's learning rate
   * @param compensated c_i, length d; not to be kept after the call
   */
  void capture(int round, int worker, float learningRate, float[] compensated) throws IOException;
}
