package org.bitopk.job.bench;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.deeplearning4j.spark.api.RDDTrainingApproach;
import org.deeplearning4j.spark.api.Repartition;
import org.deeplearning4j.spark.impl.multilayer.SparkDl4jMultiLayer;
import org.deeplearning4j.spark.impl.paramavg.ParameterAveragingTrainingMaster;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;

/** EndToEndBenchmark's DL4J column (-Dbitopk.dl4j=true): DL4J's Spark module is on the Spark 3.5 line only. */
public final class Dl4jAveragingRate {
  private Dl4jAveragingRate() {}

  /** DL4J's parameter averaging after every minibatch of {@code batch} per worker: averaging rounds per second. */
  public static double roundsPerSecond(JavaSparkContext sc, LabeledImages train, int workers, int rounds,
      int batch) {
    List<DataSet> batches = new ArrayList<>();
    int length = train.featureLength();
    for (int b = 0; b < workers * rounds; b++) {
      float[] features = new float[batch * length];
      float[] labels = new float[batch * 10];
      for (int i = 0; i < batch; i++) {
        int example = (b * batch + i) % train.count();
        System.arraycopy(train.features(), example * length, features, i * length, length);
        labels[i * 10 + train.labels()[example]] = 1f;
      }
      batches.add(new DataSet(Nd4j.createFromArray(features).reshape(batch, length),
          Nd4j.createFromArray(labels).reshape(batch, 10)));
    }
    JavaRDD<DataSet> rdd = sc.parallelize(batches, workers);
    ParameterAveragingTrainingMaster master = new ParameterAveragingTrainingMaster.Builder(workers, batch)
        .batchSizePerWorker(batch).averagingFrequency(1).workerPrefetchNumBatches(0)
        .repartionData(Repartition.Never).rddTrainingApproach(RDDTrainingApproach.Direct).rngSeed(42).build();
    SparkDl4jMultiLayer network = new SparkDl4jMultiLayer(sc, ModelArchitecture.MLP.build(42, 1, 28, 28, 10,
        new Sgd(0.1)), master);
    network.fit(rdd.sample(false, 0.1, 1)); // warm-up
    long start = System.nanoTime();
    network.fit(rdd);
    double seconds = (System.nanoTime() - start) / 1e9;
    return rounds / seconds;
  }
}
