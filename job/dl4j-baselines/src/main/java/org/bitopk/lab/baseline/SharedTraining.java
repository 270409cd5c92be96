package org.bitopk.lab.baseline;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.job.problem.Evaluation;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.spark.api.RDDTrainingApproach;
import org.deeplearning4j.spark.impl.multilayer.SparkDl4jMultiLayer;
import org.deeplearning4j.spark.parameterserver.training.SharedTrainingMaster;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.parameterserver.distributed.conf.VoidConfiguration;

/**
 * DL4J's {@code SharedTrainingMaster} (dl4j-spark-parameterserver: threshold-encoded gradient sharing over Aeron,
 * Strom 2015), its controller on loopback in local mode and on the driver's address on a cluster. Fitted in chunks of {@code evalEvery} rounds like {@link ParameterAveraging};
 * each chunk runs under a Spark job group with a deadline (the budget's remainder plus a minute), because this
 * master is known to hang in local mode: past the deadline its jobs are cancelled and the system is reported as
 * failed with what it reached. Its bytes travel over Aeron, outside Spark, and are not counted (empty cells).
 */
final class SharedTraining implements ComparedSystem {
  static final String NAME = "shared";
  /**
   * Aeron's publication unblock timeout. DL4J's AeronUdpTransport sets aeron.client.liveness.timeout to 30 s in
   * every JVM that joins the mesh, and Aeron's media driver refuses to start unless this one (15 s by default) is
   * longer: the driver's JVM and every executor's need it raised before their first Aeron context.
   */
  static final String AERON_TIMEOUT = "aeron.publication.unblock.timeout";
  static final String AERON_TIMEOUT_NANOS = "60000000000";
  static final String EXECUTOR_OPTIONS = "spark.executor.extraJavaOptions";
  private static final int PORT = 40123;
  /** At most this much of the budget counts toward a chunk's deadline: a warm-up or grid has no clock budget. */
  private static final double CHUNK_SECONDS = 60;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public SystemResult run(Context context) throws Exception {
    if (System.getProperty(AERON_TIMEOUT) == null) {
      System.setProperty(AERON_TIMEOUT, AERON_TIMEOUT_NANOS);
    }
    ComparisonSettings s = context.settings();
    LabeledImages train = context.data().train();
    LabeledImages test = context.data().test();
    int p = s.workers();
    JavaSparkContext sc = context.sc();
    MultiLayerNetwork network = Dl4jSetup.network(train, s.seed(), s.learningRate());
    String controller = controllerAddress(sc);
    VoidConfiguration voidConfiguration = VoidConfiguration.builder().unicastPort(PORT)
        .networkMask(networkMask(controller)).controllerAddress(controller).build();
    SharedTrainingMaster master = new SharedTrainingMaster.Builder(voidConfiguration, s.batchSize())
        .batchSizePerWorker(s.batchSize()).workersPerNode(workersPerNode(p, sc.master().startsWith("local"),
            sc.sc().statusTracker().getExecutorInfos().length - 1)).workerPrefetchNumBatches(0)
        .rddTrainingApproach(RDDTrainingApproach.Direct).rngSeed(s.seed()).build();
    SparkDl4jMultiLayer spark = new SparkDl4jMultiLayer(sc, network, master);
    Trace.Builder trace = new Trace.Builder();
    Evaluation initial = Dl4jSetup.evaluate(spark.getNetwork(), test);
    trace.add(new TracePoint(0, 0, 0, initial.accuracy(), initial.loss()));
    String group = "bitopk-tta-shared";
    long rounds = 0;
    TrainingClock clock = new TrainingClock();
    ExecutorService fitter = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "shared-training-fit");
      t.setDaemon(true);
      return t;
    });
    String versions = "dl4j-spark-parameterserver " + version(SharedTrainingMaster.class);
    try {
      clock.start();
      for (int epoch = 0; epoch < s.epochs(); epoch++) {
        clock.pause();
        List<DataSet> minibatches = Dl4jSetup.minibatches(train, s.batchSize(), s.seed(), epoch);
        clock.resume();
        int usable = minibatches.size() / p * p;
        for (int start = 0; start < usable; start += s.evalEvery() * p) {
          int end = Math.min(usable, start + s.evalEvery() * p);
          JavaRDD<DataSet> chunk = sc.parallelize(minibatches.subList(start, end), p);
          Future<?> fit = fitter.submit(() -> {
            sc.setJobGroup(group, "SharedTrainingMaster fit", true);
            spark.fit(chunk);
          });
          long deadlineMs = (long) ((Math.min(s.maxSeconds() - clock.seconds(), CHUNK_SECONDS) + 60) * 1000);
          try {
            fit.get(Math.max(1000, deadlineMs), TimeUnit.MILLISECONDS);
          } catch (TimeoutException e) {
            sc.cancelJobGroup(group);
            fit.cancel(true);
            return SystemResult.failed(NAME, versions + "; " + p + " workers", trace.build(), String.format(
                Locale.ROOT, "fit of rounds %d-%d did not return within %.0f s; its Spark jobs were cancelled",
                rounds, rounds + (end - start) / p, Math.max(1000, deadlineMs) / 1000.0)).withoutBytes();
          } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return SystemResult.failed(NAME, versions + "; " + p + " workers", trace.build(),
                cause.getClass().getName() + ": " + String.valueOf(cause.getMessage()).lines().findFirst().orElse(""))
                .withoutBytes();
          }
          rounds += (end - start) / p;
          clock.pause();
          Evaluation e = Dl4jSetup.evaluate(spark.getNetwork(), test);
          trace.add(new TracePoint(rounds, clock.seconds(), 0, e.accuracy(), e.loss()));
          clock.resume();
          if (s.done(clock.seconds(), rounds, e.accuracy())) {
            return done(s, trace, rounds, versions);
          }
        }
      }
      return done(s, trace, rounds, versions);
    } finally {
      fitter.shutdownNow();
    }
  }

  /**
   * {@code conf} with Aeron's publication unblock timeout raised in the executors' JVMs too, appended to the
   * executor Java options the user gave (a timeout of the user's own is left alone). Must be set before the
   * SparkContext starts: executors read their Java options once, at launch.
   */
  static SparkConf forExecutors(SparkConf conf) {
    String options = conf.get(EXECUTOR_OPTIONS, "").trim();
    if (!options.contains("-D" + AERON_TIMEOUT + "=")) {
      conf.set(EXECUTOR_OPTIONS, (options.isEmpty() ? "" : options + " ") + "-D" + AERON_TIMEOUT + "="
          + AERON_TIMEOUT_NANOS);
    }
    return conf;
  }

  /**
   * DL4J's trainers in each executor's JVM: P in local mode (one JVM), else P spread over the executors (each
   * trains its share), not P in every executor.
   */
  static int workersPerNode(int workers, boolean local, int executors) {
    return local || executors < 1 ? workers : Math.max(1, (workers + executors - 1) / executors);
  }

  /**
   * Where Aeron's controller listens: loopback in local mode, else the driver's own address (on a cluster the
   * executors are on other hosts and could never reach the driver's 127.0.0.1).
   */
  static String controllerAddress(JavaSparkContext sc) {
    return sc.master().startsWith("local") ? "127.0.0.1" : sc.getConf().get("spark.driver.host", "127.0.0.1");
  }

  /** The /24 around an IPv4 address (loopback: 127.0.0.0/8), where DL4J looks for the workers' interfaces. */
  static String networkMask(String address) {
    if (address.startsWith("127.")) {
      return "127.0.0.0/8";
    }
    return address.substring(0, address.lastIndexOf('.')) + ".0/24";
  }

  private static SystemResult done(ComparisonSettings s, Trace.Builder trace, long rounds, String versions) {
    String details = String.format(Locale.ROOT, "DL4J SharedTrainingMaster (%s, Aeron on port %d, default "
        + "adaptive threshold); %d workers; batch %d; SGD lr %s; %d rounds; bytes over Aeron not counted", versions,
        PORT, s.workers(), s.batchSize(), s.learningRate(), rounds);
    return SystemResult.ok(NAME, details, trace.build()).withoutBytes();
  }

  private static String version(Class<?> type) {
    String v = type.getPackage() == null ? null : type.getPackage().getImplementationVersion();
    return v == null ? "1.0.0-M2" : v;
  }
}
