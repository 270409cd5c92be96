package org.bitopk.job.engine;

import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.Function2;
import org.bitopk.compression.CompressionStep;
import org.bitopk.compression.SparseCodec;
import org.bitopk.compression.ValueFormat;
import org.bitopk.job.problem.ObjectiveFactory;

/**
 * The per-iteration task: one call per partition, i.e. per worker. Brings a pooled replica to x_t, computes
 * the worker's gradient, applies its residual and the uplink compressor, and returns the encoded vector.
 *
 * <p>The closure holds only settings and broadcast handles (see the closure-size test), never data or
 * parameters: the shard comes from the cached partition, the model from the executor's replica pool.
 */
public final class WorkerTask<S> implements Function2<Integer, Iterator<S>, Iterator<WorkerReport>> {
  private static final long serialVersionUID = 1L;

  private final String runId;
  private final int epoch;
  private final int batchIndex;
  private final float learningRate;
  private final ObjectiveFactory<S> factory;
  private final UplinkSettings uplink;
  private final DownlinkView downlink;
  private final boolean checksum;
  private final boolean collectXi;

  public WorkerTask(String runId, int epoch, int batchIndex, float learningRate, ObjectiveFactory<S> factory,
      UplinkSettings uplink, DownlinkView downlink, boolean checksum, boolean collectXi) {
    this.runId = runId;
    this.epoch = epoch;
    this.batchIndex = batchIndex;
    this.learningRate = learningRate;
    this.factory = factory;
    this.uplink = uplink;
    this.downlink = downlink;
    this.checksum = checksum;
    this.collectXi = collectXi;
  }

  @Override
  public Iterator<WorkerReport> call(Integer partition, Iterator<S> shards) {
    if (!shards.hasNext()) {
      throw new IllegalStateException("partition " + partition + " holds no worker shard");
    }
    S shard = shards.next();
    if (shards.hasNext()) {
      throw new IllegalStateException("partition " + partition + " holds more than one worker shard");
    }
    int t = downlink.iteration();
    int workerId = factory.workerId(shard);
    RunState run = ExecutorRegistry.run(runId);
    run.forgetUpdatesBefore(downlink.firstUpdate());
    Replica<S> replica = run.borrow(factory, t);
    try {
      long start = System.nanoTime();
      Replica.CatchUp catchUp = replica.catchUp(downlink, run);
      long sum = checksum ? ParameterChecksum.of(replica.parameters) : 0L;
      long caughtUp = System.nanoTime();
      float[] gradient = replica.gradient;
      double loss = replica.objective.gradient(shard, epoch, batchIndex, gradient);
      long computed = System.nanoTime();
      Divergence.check(workerId, t, loss, gradient);

      boolean lost = run.worker(workerId) == null && t > 0;
      int dimension = gradient.length;
      WorkerState state = run.createWorker(workerId, () -> WorkerState.fresh(uplink, workerId, dimension));
      state.lastIteration = t;

      int[] statisticsIndices = run.statisticsIndices(factory);
      float[] statistics = new float[statisticsIndices.length];
      for (int i = 0; i < statisticsIndices.length; i++) {
        statistics[i] = gradient[statisticsIndices[i]];
        gradient[statisticsIndices[i]] = 0f;
      }
      float[] input = gradient;
      if (state.velocity != null) {
        float mu = uplink.momentum();
        for (int j = 0; j < dimension; j++) {
          state.velocity[j] = mu * state.velocity[j] + gradient[j];
        }
        input = state.velocity;
      }
      CompressionStep step;
      try {
        step = state.feedback.step(input, learningRate, state.compressor, uplink.targetK());
      } catch (IllegalArgumentException overflow) {
        // inputs are finite and of the right shape here, so this is residual + lr * input overflowing
        throw Divergence.overflow(workerId, t, overflow);
      }
      byte[] encoded = SparseCodec.encode(step.sent(), ValueFormat.FP32);
      float[] compensated = null;
      float[] scaled = null;
      if (collectXi) {
        compensated = step.sent().toDense();
        float[] residual = state.feedback.residual();
        scaled = new float[dimension];
        for (int j = 0; j < dimension; j++) {
          compensated[j] += residual[j];
          scaled[j] = learningRate * input[j];
        }
      }
      long compressed = System.nanoTime();
      return List.of(new WorkerReport(workerId, t, encoded, statistics, loss, step.targetK(), step.achievedK(),
          step.compensatedNorm(), step.residualNorm(), computed - caughtUp, compressed - computed, caughtUp - start,
          catchUp.updatesApplied(), catchUp.resynchronised(), lost, sum, compensated, scaled)).iterator();
    } finally {
      run.release(replica);
    }
  }
}
