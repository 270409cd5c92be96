package org.bitopk.job.problem.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.TrainTest;
import org.bitopk.datasets.WorkerShard;
import org.bitopk.job.LocalSpark;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Shards the executors read from the data set's files are value for value the shards the driver cuts and
 * broadcasts from the same files (so training on them gives the same bits): Fashion-MNIST's IDX files and a
 * generated data set, IID and non-IID.
 */
class ExecutorShardsTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  @ParameterizedTest(name = "{0} P={1} nonIid={2}")
  @CsvSource({"fashion-mnist, 3, false", "'synthetic:n=500,test=20,shape=1x4x4', 5, true",
      "'synthetic:n=500,test=20,shape=1x4x4', 4, false"})
  void executorsCutTheShardsTheDriverWouldHaveCut(String dataset, int workers, boolean nonIid) {
    JavaSparkContext sc = SPARK.context();
    TrainTest data = Datasets.load(dataset, null, sc.hadoopConfiguration());
    List<WorkerShard> fromDriver;
    try (ImageProblem broadcast = new ImageProblem(sc, dataset, data, ModelArchitecture.MLP_SMALL, workers, nonIid,
        16, 7)) {
      fromDriver = broadcast.shards().collect();
    }
    List<WorkerShard> fromFiles;
    try (ImageProblem read = ImageProblem.readByExecutors(sc, dataset, Optional.empty(), data,
        ModelArchitecture.MLP_SMALL, workers, nonIid, 16, 7)) {
      fromFiles = read.shards().collect();
      assertEquals(workers, read.shards().getNumPartitions());
    }
    assertEquals(workers, fromFiles.size());
    for (int w = 0; w < workers; w++) {
      assertEquals(w, fromFiles.get(w).workerId());
      assertArrayEquals(fromDriver.get(w).data().labels(), fromFiles.get(w).data().labels(), "labels of " + w);
      assertArrayEquals(fromDriver.get(w).data().features(), fromFiles.get(w).data().features(), "features of " + w);
    }
  }
}
