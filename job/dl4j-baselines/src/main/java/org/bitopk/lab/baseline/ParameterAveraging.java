package org.bitopk.lab.baseline;

import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaRDD;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.job.problem.Evaluation;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.spark.api.RDDTrainingApproach;
import org.deeplearning4j.spark.impl.multilayer.SparkDl4jMultiLayer;
import org.deeplearning4j.spark.impl.paramavg.ParameterAveragingTrainingMaster;
import org.nd4j.linalg.dataset.DataSet;

/**
 * DL4J's {@code ParameterAveragingTrainingMaster} (dl4j-spark): P workers each fit {@code averagingFrequency}
 * minibatches from the broadcast parameters, the driver averages what they return.
 *
 * <p>The training data are handed to {@code fit} in chunks of whole averagings, {@code ceil(evalEvery / f) · f}
 * rounds of P minibatches, so each chunk is split by DL4J into exactly {@code chunk / (P · f)} averagings and
 * the model can be evaluated between chunks. At an epoch's end the minibatches left over are fitted as one more
 * chunk truncated to whole averagings.
 *
 * <p>Bytes: per averaging the parameters and the updater state are broadcast to the P workers and returned by
 * each, {@link #bytesPerAveraging}; DL4J's Spark overheads (the data's own shuffle, task closures, results'
 * serialisation framing) are not counted.
 */
final class ParameterAveraging implements ComparedSystem {
  static final String PREFIX = "patm-";
  private final int frequency;

  ParameterAveraging(int frequency) {
    if (frequency < 1) {
      throw new IllegalArgumentException("averaging frequency must be >= 1, got " + frequency);
    }
    this.frequency = frequency;
  }

  int frequency() {
    return frequency;
  }

  @Override
  public String name() {
    return PREFIX + frequency;
  }

  /** 4 bytes × (d parameters + u updater state) × P workers × 2 (broadcast + returned). */
  static long bytesPerAveraging(long parameters, long updaterState, int workers) {
    return 4L * (parameters + updaterState) * workers * 2;
  }

  /** Rounds per chunk handed to {@code fit}: {@code evalEvery} rounded up to whole averagings. */
  static int chunkRounds(int evalEvery, int frequency) {
    return (evalEvery + frequency - 1) / frequency * frequency;
  }

  @Override
  public SystemResult run(Context context) {
    ComparisonSettings s = context.settings();
    LabeledImages train = context.data().train();
    LabeledImages test = context.data().test();
    int p = s.workers();
    MultiLayerNetwork network = Dl4jSetup.network(train, s.seed(), s.learningRate());
    long d = network.numParams();
    long u = network.getUpdater().getStateViewArray() == null ? 0 : network.getUpdater().getStateViewArray().length();
    long perAveraging = bytesPerAveraging(d, u, p);
    ParameterAveragingTrainingMaster master = new ParameterAveragingTrainingMaster.Builder(p, s.batchSize())
        .batchSizePerWorker(s.batchSize()).averagingFrequency(frequency).workerPrefetchNumBatches(0)
        .rddTrainingApproach(RDDTrainingApproach.Direct).saveUpdater(true).rngSeed(s.seed()).build();
    SparkDl4jMultiLayer spark = new SparkDl4jMultiLayer(context.sc(), network, master);
    Trace.Builder trace = new Trace.Builder();
    Evaluation initial = Dl4jSetup.evaluate(spark.getNetwork(), test);
    trace.add(new TracePoint(0, 0, 0, initial.accuracy(), initial.loss()));
    int chunkRounds = chunkRounds(s.evalEvery(), frequency);
    int perAveragingBatches = p * frequency;
    long rounds = 0;
    long averagings = 0;
    int epochsRun = 0;
    TrainingClock clock = new TrainingClock();
    clock.start();
    outer:
    for (int epoch = 0; epoch < s.epochs(); epoch++) {
      clock.pause();
      List<DataSet> minibatches = Dl4jSetup.minibatches(train, s.batchSize(), s.seed(), epoch);
      clock.resume();
      epochsRun++;
      int usable = minibatches.size() / perAveragingBatches * perAveragingBatches;
      for (int start = 0; start < usable; start += chunkRounds * p) {
        int end = Math.min(usable, start + chunkRounds * p);
        JavaRDD<DataSet> chunk = context.sc().parallelize(minibatches.subList(start, end), p);
        spark.fit(chunk);
        int batches = end - start;
        rounds += batches / p;
        averagings += batches / perAveragingBatches;
        clock.pause();
        Evaluation e = Dl4jSetup.evaluate(spark.getNetwork(), test);
        trace.add(new TracePoint(rounds, clock.seconds(), averagings * perAveraging, e.accuracy(), e.loss()));
        clock.resume();
        if (s.done(clock.seconds(), rounds, e.accuracy())) {
          break outer;
        }
      }
    }
    String details = String.format(Locale.ROOT, "DL4J ParameterAveragingTrainingMaster (dl4j-spark, Direct); "
        + "averaging every %d minibatch(es); %d workers; batch %d; SGD lr %s; %d averagings in %d rounds "
        + "(%d epoch(s) started); evaluated every %d rounds; bytes = averagings x 4 x (d %d + updater state %d) "
        + "x P %d x 2 (broadcast + returned)", frequency, p, s.batchSize(), s.learningRate(), averagings, rounds,
        epochsRun, chunkRounds, d, u, p);
    return SystemResult.ok(name(), details, trace.build());
  }
}
