package org.bitopk.job.spark;

import com.esotericsoftware.kryo.Kryo;
import org.apache.spark.serializer.KryoRegistrator;
import org.bitopk.compression.SparseVector;
import org.bitopk.job.engine.WorkerReport;
import org.bitopk.job.problem.quadratic.QuadraticShard;

/**
 * Registers the classes that cross the wire as values (task results, broadcasts, cached shards), so Kryo
 * writes small class ids instead of class names. Lives in the job module on purpose: the compression module
 * stays free of Spark and Kryo, and its wire format is its own SparseCodec bytes anyway.
 */
public final class BitopkKryoRegistrator implements KryoRegistrator {
  @Override
  public void registerClasses(Kryo kryo) {
    kryo.register(WorkerReport.class);
    kryo.register(byte[].class);
    kryo.register(float[].class);
    kryo.register(int[].class);
    kryo.register(long[].class);
    kryo.register(double[].class);
    kryo.register(boolean[].class);
    kryo.register(SparseVector.class);
    kryo.register(QuadraticShard.class);
    kryo.register(org.bitopk.job.problem.synthetic.SyntheticGradientShard.class);
    kryo.register(org.bitopk.datasets.WorkerShard.class);
    kryo.register(org.bitopk.datasets.LabeledImages.class);
    kryo.register(org.bitopk.job.engine.WorkerMemory.class);   // a moving worker's state, in its last report
  }
}
