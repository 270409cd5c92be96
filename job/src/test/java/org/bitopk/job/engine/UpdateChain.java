package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.bitopk.compression.SparseCodec;
import org.bitopk.compression.SparseVector;
import org.bitopk.compression.ValueFormat;

/**
 * A random x_0 and the sparse updates that move it, for catch-up tests: {@code models.get(t)} is x_t, applied by
 * hand; {@code updates.get(s)} is update s as the driver broadcasts it (encoded, FP32).
 */
record UpdateChain(List<float[]> models, List<Broadcast<byte[]>> updates) {
  /** x_0 of dimension {@code d} and {@code count} updates of {@code nonZeros} entries each, from {@code seed}. */
  static UpdateChain of(JavaSparkContext sc, int d, int count, int nonZeros, long seed) {
    Random random = new Random(seed);
    float[] x = new float[d];
    for (int j = 0; j < d; j++) {
      x[j] = (float) random.nextGaussian();
    }
    List<float[]> models = new ArrayList<>();
    models.add(x.clone());
    List<Broadcast<byte[]>> updates = new ArrayList<>();
    for (int t = 0; t < count; t++) {
      int[] idx = random.ints(0, d).distinct().limit(nonZeros).sorted().toArray();
      float[] val = new float[idx.length];
      for (int i = 0; i < val.length; i++) {
        val[i] = (float) random.nextGaussian();
      }
      SparseVector u = SparseVector.of(d, idx, val);
      updates.add(sc.broadcast(SparseCodec.encode(u, ValueFormat.FP32)));
      SparseUpdates.apply(x, u);
      models.add(x.clone());
    }
    return new UpdateChain(models, updates);
  }
}
