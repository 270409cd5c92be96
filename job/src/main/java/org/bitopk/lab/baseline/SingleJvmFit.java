package org.bitopk.lab.baseline;

import java.util.List;
import java.util.Locale;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.job.problem.Evaluation;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The no-distribution reference: DL4J's {@code MultiLayerNetwork.fit} on one minibatch of the per-worker size
 * after another, in the driver JVM, with ND4J allowed as many threads as Spark has task slots (the cores the
 * distributed systems get). Moves no bytes. Evaluated after as many examples as {@code evalEvery} rounds of
 * the distributed systems see (P minibatches per round).
 */
final class SingleJvmFit implements ComparedSystem {
  static final String NAME = "single-jvm";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public SystemResult run(Context context) {
    ComparisonSettings s = context.settings();
    LabeledImages train = context.data().train();
    LabeledImages test = context.data().test();
    int threads = Math.max(1, context.sc().defaultParallelism());
    int before = Nd4j.getEnvironment().maxThreads();
    int beforeMaster = Nd4j.getEnvironment().maxMasterThreads();
    int beforeBlas = Nd4j.factory().blas().getMaxThreads();
    // OMP_NUM_THREADS=1 (set for the executors' one-task-per-core) would leave this fit one core of the P's
    Nd4j.getEnvironment().setMaxThreads(threads);
    Nd4j.getEnvironment().setMaxMasterThreads(threads);
    Nd4j.factory().blas().setMaxThreads(threads);
    try {
      MultiLayerNetwork network = Dl4jSetup.network(train, s.seed(), s.learningRate());
      Trace.Builder trace = new Trace.Builder();
      TrainingClock clock = new TrainingClock();
      Evaluation initial = Dl4jSetup.evaluate(network, test);
      trace.add(new TracePoint(0, 0, 0, initial.accuracy(), initial.loss()));
      long batchesPerEval = (long) s.evalEvery() * s.workers();
      long batches = 0;
      int epochsRun = 0;
      clock.start();
      outer:
      for (int epoch = 0; epoch < s.epochs(); epoch++) {
        clock.pause();
        List<DataSet> minibatches = Dl4jSetup.minibatches(train, s.batchSize(), s.seed(), epoch);
        clock.resume();
        epochsRun++;
        for (int i = 0; i < minibatches.size(); i++) {
          network.fit(minibatches.get(i));
          batches++;
          boolean lastOfRun = epoch == s.epochs() - 1 && i == minibatches.size() - 1;
          if (batches % batchesPerEval == 0 || lastOfRun || batches / s.workers() >= s.maxRounds()) {
            clock.pause();
            Evaluation e = Dl4jSetup.evaluate(network, test);
            trace.add(new TracePoint(batches / s.workers(), clock.seconds(), 0, e.accuracy(), e.loss()));
            clock.resume();
            if (s.done(clock.seconds(), batches / s.workers(), e.accuracy())) {
              break outer;
            }
          }
        }
      }
      String details = String.format(Locale.ROOT, "DL4J MultiLayerNetwork.fit in one JVM; SGD lr %s; batch %d; "
          + "ND4J and BLAS threads %d; %d minibatches (%d epoch(s) started); rounds = minibatches / %d; no bytes moved",
          s.learningRate(), s.batchSize(), threads, batches, epochsRun, s.workers());
      return SystemResult.ok(NAME, details, trace.build());
    } finally {
      Nd4j.getEnvironment().setMaxThreads(before);
      Nd4j.getEnvironment().setMaxMasterThreads(beforeMaster);
      Nd4j.factory().blas().setMaxThreads(beforeBlas);
    }
  }
}
