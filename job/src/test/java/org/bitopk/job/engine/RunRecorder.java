package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.List;

/** Keeps every record of a run in memory, for assertions. */
public final class RunRecorder implements RunListener {
  public final List<IterationRecord> iterations = new ArrayList<>();
  public final List<EpochRecord> epochs = new ArrayList<>();
  public RunSummary summary;
  /** The run's final model (MCM's central model; the master otherwise). */
  public float[] model;

  @Override
  public void onIteration(IterationRecord record, DriverState state) {
    iterations.add(record);
  }

  @Override
  public void onEpoch(EpochRecord record, DriverState state) {
    epochs.add(record);
  }

  @Override
  public void onFinish(RunSummary s, DriverState state) {
    summary = s;
    model = state.modelParameters();
  }

  /** Mean of the optimality gap over iterations [from, to). */
  public double meanGap(int from, int to) {
    double sum = 0;
    for (int t = from; t < to; t++) {
      sum += iterations.get(t).optimalityGap();
    }
    return sum / (to - from);
  }
}
