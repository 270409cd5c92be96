package org.bitopk.job.bench;

import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import org.apache.spark.SparkConf;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.bitopk.compression.Density;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.datasets.ShardSplitter;
import org.bitopk.datasets.TrainTest;
import org.bitopk.datasets.WorkerShard;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.engine.IterationRecord;
import org.bitopk.job.engine.RunRecorder;
import org.bitopk.job.engine.Trainer;
import org.bitopk.job.problem.network.ImageProblem;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.run.RunPlans;
import org.bitopk.job.spark.BitopkKryoRegistrator;
import org.bitopk.job.spark.SparkSetup;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction2;

/**
 * End-to-end iteration cost of the training job on local[2]: Fashion-MNIST MLP, bidirectional TopK, the papers'
 * batch 10 per worker and density 0.001 (-Dbitopk.batch, -Dbitopk.density), P = 4, 20, 50, 100 packed into the
 * default number of tasks (min(P, task slots); -Dbitopk.tasks=S to force). For each P, in the same JVM: the Spark
 * floor (a no-op job over S partitions that reads a fresh tiny broadcast, which is then destroyed; measured before
 * and after the training run, mean of the two medians), the same floor through JavaRDD lambdas (the lambda floor),
 * the driver's CPU per job for both, the compute floor (the very same worker steps — replica update with a sparse
 * update of the downlink's size, gradient, error feedback, TopK, encode — for all P workers in a plain loop on as
 * many threads as task slots, no Spark), the job's per-iteration split (medians after a warm-up), and optionally
 * DL4J's ParameterAveragingTrainingMaster (-Dbitopk.dl4j=true, Spark 3.5 build only). Run with job/bench/e2e.sh.
 */
public final class EndToEndBenchmark {
  private static final int BATCH = Integer.getInteger("bitopk.batch", 10);
  private static final double DENSITY = Double.parseDouble(System.getProperty("bitopk.density", "0.001"));
  private static final int TASKS = Integer.getInteger("bitopk.tasks", 0);
  /** --update-window = --snapshot-every for the runs: -Dbitopk.window=N (default: the job's default). */
  /** DL4J's parameter averaging, measured in job/dl4j-baselines (the Spark 3.5 build). */
  private static final String DL4J_RATE = "org.bitopk.job.bench.Dl4jAveragingRate";
  private static final int WINDOW = Integer.getInteger("bitopk.window", TrainingConfig.builder().build().updateWindow());

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int[] workerCounts = args.length > 1 ? Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray()
        : new int[] {4, 20, 50, 100};
    boolean dl4jToo = Boolean.getBoolean("bitopk.dl4j");
    if (dl4jToo && EndToEndBenchmark.class.getClassLoader().getResource(DL4J_RATE.replace('.', '/') + ".class")
        == null) {
      System.err.println("bitopk: -Dbitopk.dl4j=true needs DL4J's Spark module, in the Spark 3.5 build only; run "
          + "job/bench/e2e.sh --spark-3.5");
      System.exit(2);
    }
    SparkConf conf = SparkSetup.conf("local[2]").set("spark.kryo.registrator", BitopkKryoRegistrator.class.getName()
        + (dl4jToo ? ",org.nd4j.kryo.Nd4jRegistrator" : ""));
    JavaSparkContext sc = SparkSetup.start(conf);
    TrainTest data = Datasets.load("fashion-mnist", null, sc.hadoopConfiguration());
    List<String> rows = new ArrayList<>();
    for (int workers : workerCounts) {
      try (ImageProblem problem = new ImageProblem(sc, "fashion-mnist", data, ModelArchitecture.MLP, workers, false,
          BATCH, 42)) {
        // The machine is shared: measure the floor before and after training and take the mean, so load drift
        // during the run affects both sides alike.
        int slots = sc.defaultParallelism();
        int tasks = TASKS > 0 ? Math.min(TASKS, workers) : Math.min(workers, slots);
        JavaRDD<WorkerShard> groups = problem.shards().coalesce(tasks).cache();
        groups.count();
        double[] floorBefore = sparkFloor(sc, groups, rounds, false);
        double[] lambdaFloorBefore = sparkFloor(sc, groups, rounds, true);
        RunRecorder r = train(sc, problem, workers, tasks, rounds);
        double[] floorAfter = sparkFloor(sc, groups, rounds, false);
        double[] lambdaFloorAfter = sparkFloor(sc, groups, rounds, true);
        double floor = (floorBefore[0] + floorAfter[0]) / 2;
        double lambdaFloor = (lambdaFloorBefore[0] + lambdaFloorAfter[0]) / 2;
        double floorCpu = (floorBefore[1] + floorAfter[1]) / 2;
        double lambdaFloorCpu = (lambdaFloorBefore[1] + lambdaFloorAfter[1]) / 2;
        groups.unpersist(false);
        double computeFloor = ComputeFloor.msPerRound(problem.objectiveFactory(),
            ShardSplitter.iid(data.train(), workers, 42), BATCH, slots, Density.targetK(DENSITY,
                problem.objectiveFactory().dimension()), Math.max(20, rounds / 4));
        List<IterationRecord> its = r.iterations.subList(Math.min(20, rounds / 5), r.iterations.size());
        double total = median(its, IterationRecord::timeTotalMs);
        double job = median(its, IterationRecord::timeJobMs);
        double gradient = median(its, IterationRecord::timeGradientMs);
        double compress = median(its, IterationRecord::timeCompressMs);
        double catchUp = median(its, IterationRecord::timeCatchupMs);
        double aggregate = median(its, IterationRecord::timeAggregateMs);
        double broadcast = median(its, IterationRecord::timeBroadcastMs);
        // Spark's share: job wall time minus the tasks' own work scheduled on the slots, plus the broadcast.
        double sparkOverhead = median(its, x -> Math.max(0, x.timeJobMs() - x.timeTaskPathMs()) + x.timeBroadcastMs());
        double dl4j = dl4jToo
            ? dl4jParameterAveraging(sc, data.train(), workers, Math.max(20, rounds / 4)) : Double.NaN;
        int perEpoch = problem.iterationsPerEpoch();
        rows.add(String.format(Locale.ROOT,
            "| %d | %d | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f | %.1f | %.2f | %.1f | %.2f | %.2f "
                + "| %.2f | %.1f | %.1f | %.1f | %.1f | %.2f | %.1f |",
            workers, tasks, total, gradient, compress, catchUp, aggregate, broadcast, job, sparkOverhead, floor,
            sparkOverhead / floor, lambdaFloor, lambdaFloor / floor, floorCpu, lambdaFloorCpu,
            lambdaFloorCpu / floorCpu, computeFloor, total * perEpoch / 1000, computeFloor * perEpoch / 1000,
            total / computeFloor, dl4j));
        System.err.println(rows.get(rows.size() - 1));
      }
    }
    System.out.println("| P | tasks | ms/round | gradient (mean/worker) | compress (mean/worker) | "
        + "catch-up (mean/worker) | driver aggregate | broadcast | Spark job | Spark overhead | Spark floor | "
        + "overhead / floor | lambda floor | lambda floor / floor | floor driver CPU | lambda floor driver CPU | "
        + "ratio | compute floor ms/round | s/epoch | compute floor s/epoch | s/epoch / compute floor | DL4J PA rounds/s |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    rows.forEach(System.out::println);
    sc.stop();
  }

  private static RunRecorder train(JavaSparkContext sc, ImageProblem problem, int workers, int tasks, int rounds) {
    TrainingConfig config = TrainingConfig.builder().mode(Mode.BIDIRECTIONAL).workers(workers).tasks(tasks)
        .densityUp(DENSITY).densityDown(DENSITY).learningRate(0.1).batchSize(BATCH).epochs(10).maxIterations(rounds)
        .consistencyCheckEvery(0).seed(42).updateWindow(WINDOW).snapshotEvery(WINDOW).build();
    RunRecorder recorder = new RunRecorder();
    new Trainer<>(sc, RunPlans.of(config, problem, sc.defaultParallelism()), problem, "bench-" + workers, List.of(recorder)).run();
    return recorder;
  }

  /**
   * Median wall time of a no-op job over the task partitions reading a fresh 16-byte broadcast. The floor proper
   * submits it as a round's job does, {@code runJob} with a named function; with {@code lambdas} it goes through
   * {@code JavaRDD.mapPartitionsWithIndex(lambda).collect()} instead, whose Scala wrappers Spark's ClosureCleaner
   * inspects with ASM in every job (the job's path before it switched to runJob).
   *
   * @return the median wall ms and the median CPU ms of the submitting (driver) thread per job; the CPU time is
   *     what the driver spends on the job itself, far less sensitive to other load on the machine than wall time
   */
  static double[] sparkFloor(JavaSparkContext sc, JavaRDD<WorkerShard> shards, int rounds, boolean lambdas) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    double[] ms = new double[rounds];
    double[] cpu = new double[rounds];
    for (int t = 0; t < rounds; t++) {
      long start = System.nanoTime();
      long cpuStart = threads.getCurrentThreadCpuTime();
      Broadcast<byte[]> tiny = sc.broadcast(new byte[16]);
      if (lambdas) {
        shards.mapPartitionsWithIndex((p, it) -> Collections.singletonList(tiny.value().length + p).iterator(), true)
            .collect();
      } else {
        sc.sc().runJob(shards.rdd(), new NoOp(tiny), ClassTag$.MODULE$.apply(Integer.class));
      }
      tiny.destroy();
      ms[t] = (System.nanoTime() - start) / 1e6;
      cpu[t] = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e6;
    }
    Arrays.sort(ms);
    Arrays.sort(cpu);
    return new double[] {ms[rounds / 2], cpu[rounds / 2]};
  }

  /** The floor's task: reads the broadcast; a named class, as the job's RoundJobFunction. */
  private static final class NoOp
      extends AbstractFunction2<TaskContext, scala.collection.Iterator<WorkerShard>, Integer> implements Serializable {
    private static final long serialVersionUID = 1L;
    private final Broadcast<byte[]> tiny;

    NoOp(Broadcast<byte[]> tiny) {
      this.tiny = tiny;
    }

    @Override
    public Integer apply(TaskContext context, scala.collection.Iterator<WorkerShard> partition) {
      return tiny.value().length + context.partitionId();
    }
  }

  /**
   * DL4J's parameter averaging after every minibatch: averaging rounds per second, measured by
   * Dl4jAveragingRate (job/dl4j-baselines' tests: DL4J's Spark module is on the Spark 3.5 line only).
   */
  static double dl4jParameterAveraging(JavaSparkContext sc, LabeledImages train, int workers, int rounds) {
    try {
      return (double) Class.forName(DL4J_RATE).getMethod("roundsPerSecond", JavaSparkContext.class,
          LabeledImages.class, int.class, int.class, int.class).invoke(null, sc, train, workers, rounds, BATCH);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot measure DL4J's parameter averaging", e);
    }
  }

  private static double median(List<IterationRecord> records, ToDoubleFunction<IterationRecord> field) {
    double[] v = records.stream().mapToDouble(field).sorted().toArray();
    return v[v.length / 2];
  }
}
