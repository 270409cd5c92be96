package org.bitopk.job.engine;

/**
 * A copy of one executor-side replica's state.
 *
 * @param iteration the t whose x_t the replica holds
 * @param parameters the replica's canonical float[]
 * @param modelParameters the parameters its model (e.g. the DL4J network) actually computes with
 */
public record ReplicaSnapshot(int iteration, float[] parameters, float[] modelParameters) {}
