package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Records the driver's x_t for every t, the run's records, and the executor replicas the run left at its end. */
class ReplicaWatch implements RunListener {
  final Map<Integer, float[]> masters = new HashMap<>();
  final List<ReplicaSnapshot> replicas = new ArrayList<>();
  final RunRecorder recorder = new RunRecorder();

  @Override
  public void onStart(DriverState state) {
    masters.put(state.iteration(), state.masterParameters());
  }

  @Override
  public void onIteration(IterationRecord record, DriverState state) {
    recorder.onIteration(record, state);
    masters.put(state.iteration(), state.masterParameters());
  }

  @Override
  public void onFinish(RunSummary summary, DriverState state) {
    recorder.onFinish(summary, state);
    replicas.addAll(ExecutorRegistry.replicas(state.runId()));
  }
}
