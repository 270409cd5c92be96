package org.bitopk.job.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.bitopk.job.problem.WorkerPartitions;
import org.bitopk.job.spark.SparkSetup;

/** Scratch probe of the per-job floor. */
public final class SparkFloorProbe {
  public static void main(String[] args) {
    JavaSparkContext sc = SparkSetup.start(SparkSetup.conf(args.length > 0 ? args[0] : "local[2]"));
    List<Integer> ids = new ArrayList<>();
    for (int i = 0; i < 4; i++) ids.add(i);
    JavaRDD<Integer> rdd = WorkerPartitions.pin(sc.parallelize(ids, 4));
    for (int variant = 0; variant < 3; variant++) {
      double[] ms = new double[300];
      for (int t = 0; t < ms.length; t++) {
        long s = System.nanoTime();
        Broadcast<byte[]> b = variant >= 1 ? sc.broadcast(new byte[16]) : null;
        final Broadcast<byte[]> bb = b;
        List<Integer> out = rdd.mapPartitionsWithIndex((p, it) -> {
          if (bb != null) bb.value();
          return Collections.singletonList(p).iterator();
        }, true).collect();
        if (b != null && variant == 2) b.destroy();
        ms[t] = (System.nanoTime() - s) / 1e6;
      }
      Arrays.sort(ms);
      System.out.printf("variant %d median %.2f ms p10 %.2f p90 %.2f%n", variant, ms[150], ms[30], ms[270]);
    }
    sc.stop();
  }
}
