package org.bitopk.datasets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class WorkerShardRddTest {
  private static JavaSparkContext sc;

  @BeforeAll
  static void start() {
    SparkConf conf = new SparkConf().setMaster("local[2]").setAppName("WorkerShardRddTest")
        .set("spark.driver.host", "127.0.0.1").set("spark.driver.bindAddress", "127.0.0.1")
        .set("spark.ui.enabled", "false");
    sc = new JavaSparkContext(conf);
    sc.setLogLevel("WARN");
  }

  @AfterAll
  static void stop() {
    if (sc != null) {
      sc.stop();
    }
  }

  @Test
  void partitionIHoldsWorkerIOnly() {
    LabeledImages data = SyntheticData.builder().trainCount(700).testCount(10).shape(1, 4, 4).seed(3).build()
        .generate().train();
    for (int workers : new int[] {1, 7}) {
      List<WorkerShard> shards = ShardSplitter.nonIid(data, workers, 1);
      JavaRDD<WorkerShard> rdd = WorkerShardRdd.create(sc, shards);
      assertEquals(workers, rdd.getNumPartitions());
      List<int[]> seen = rdd.mapPartitionsWithIndex((Integer partition, Iterator<WorkerShard> it) -> {
        List<int[]> out = new ArrayList<>();
        while (it.hasNext()) {
          WorkerShard shard = it.next();
          // Computed on the executor from the deserialised shard: partition, worker, count, first minibatch label.
          out.add(new int[] {partition, shard.workerId(), shard.data().count(),
              shard.minibatch(0, 0, 5, 9, false).labels()[0]});
        }
        return out.iterator();
      }, true).collect();
      assertEquals(workers, seen.size());
      for (int i = 0; i < workers; i++) {
        assertArrayEquals(new int[] {i, i, shards.get(i).data().count(),
            shards.get(i).minibatch(0, 0, 5, 9, false).labels()[0]}, seen.get(i));
      }
    }
  }

  @Test
  void shardsOutOfWorkerOrderAreRejected() {
    LabeledImages data = SyntheticData.builder().trainCount(20).testCount(10).shape(1, 1, 1).build()
        .generate().train();
    List<WorkerShard> shards = new ArrayList<>(ShardSplitter.iid(data, 2, 1));
    java.util.Collections.reverse(shards);
    assertThrows(IllegalArgumentException.class, () -> WorkerShardRdd.create(sc, shards));
    assertThrows(IllegalArgumentException.class, () -> WorkerShardRdd.create(sc, List.of()));
  }
}
