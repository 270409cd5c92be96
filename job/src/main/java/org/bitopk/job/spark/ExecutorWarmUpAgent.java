package org.bitopk.job.spark;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.JavaSerializer;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.datasets.WorkerShard;
import org.bitopk.job.engine.RoundRehearsal;
import org.bitopk.job.engine.UplinkSettings;
import org.bitopk.job.engine.WorkerReport;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.problem.network.NetworkObjectiveFactory;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * A Java agent that warms an executor's JVM up while Spark starts it, before the executor registers: it loads ND4J
 * and the job's classes and rehearses a round on a network and shards of its own, so that the executor's first
 * tasks find the round's code loaded and compiled. Spark creates an executor's plugins only after it registered
 * ({@code NativeWarmUp}), and a joining executor's first tasks build the worker groups it takes over, which the run
 * waits for; a JVM started cold spends seconds of CPU on that (measured on the network lab: the building took 5.4 s,
 * against rounds of 60-90 ms, most of it loading classes and compiling them).
 *
 * <p>Given as {@code -javaagent:<a jar whose manifest names this class>} in {@code spark.executor.extraJavaOptions}:
 * the job's own jar, which names it as its {@code Premain-Class} and which the JVM then puts on its class path (the
 * submit scripts' {@code --warm-executors}), or a jar that only names it, with the job's classes on the executor's
 * class path (the network lab's). The warm-up runs on a daemon thread of its own, beside Spark's start, and
 * shares nothing with a run: its replica, shards, states and random numbers are its own and dropped, and the JVM
 * initialises a class once, whichever thread asks first. A warm-up that fails (the job's classes not on the class
 * path) is logged in one line and changes nothing else. {@code passes=N} as the agent's argument sets its passes;
 * another argument is said in one line, and the executor starts without the warm-up.
 */
public final class ExecutorWarmUpAgent {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ExecutorWarmUpAgent.class);
  /** Passes of the rehearsed round, each worker once: enough for the JVM to compile a step's hot loops. */
  static final int PASSES = 40;
  /** The rehearsal's workers and their examples: a two-group move's, small shards. */
  private static final int WORKERS = 2;
  private static final int EXAMPLES = 64;
  /** The warm-up {@link #premain} started in this JVM, if it did. */
  private static final AtomicReference<Optional<CompletableFuture<String>>> STARTED =
      new AtomicReference<>(Optional.empty());

  private ExecutorWarmUpAgent() {}

  /**
   * The JVM's entry before {@code main}: starts the warm-up and returns. A wrong argument is said in one line and
   * the executor starts without the warm-up (a premain that throws would stop the JVM, and Spark would start
   * executor after executor that stops).
   */
  public static void premain(String args) {
    int passes;
    try {
      passes = passes(args);
    } catch (IllegalArgumentException e) {
      LOG.error("{}; the executor starts without its warm-up", e.getMessage());
      return;
    }
    STARTED.set(Optional.of(start(passes)));
  }

  /** The warm-up the agent started in this JVM, if it was given. */
  static Optional<CompletableFuture<String>> started() {
    return STARTED.get();
  }

  /** {@code passes=N}, or {@value #PASSES} when {@code args} is empty. */
  static int passes(String args) {
    if (args == null || args.isBlank()) {   // the JVM passes null for an agent without options
      return PASSES;
    }
    if (!args.matches("passes=[1-9][0-9]{0,5}")) {
      throw new IllegalArgumentException("-javaagent:...=" + args + ": expected passes=N, N a whole number from 1");
    }
    return Integer.parseInt(args.substring("passes=".length()));
  }

  /** Starts the warm-up on a daemon thread; done with a line saying what it did, or failed with why. */
  static CompletableFuture<String> start(int passes) {
    CompletableFuture<String> done = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        String line = warmUp(passes);
        LOG.info("{}", line);
        done.complete(line);
      } catch (Throwable e) {   // only time is lost: the executor's first tasks load what they need themselves
        LOG.warn("the executor's warm-up failed; its first tasks load the job's classes themselves: {}",
            e.toString());
        done.completeExceptionally(e);
      }
    }, "bitopk-executor-warm-up");
    thread.setDaemon(true);
    thread.start();
    return done;
  }

  /**
   * Sends a task's objects through the serializers first (the first tasks of a joining executor read them as the
   * agent ends: measured on the network lab, its first task spent most of a second loading Spark's and Kryo's
   * classes), then rehearses {@code passes} passes of a round of the Fashion-MNIST MLP with Top-k; says what it
   * took.
   */
  static String warmUp(int passes) {
    long start = System.nanoTime();
    NetworkObjectiveFactory factory = new NetworkObjectiveFactory(ModelArchitecture.MLP, 1, 28, 28, 10, 32, 1L,
        false);
    List<WorkerShard> shards = new ArrayList<>();
    SplittableRandom random = new SplittableRandom(1);
    for (int w = 0; w < WORKERS; w++) {
      float[] features = new float[EXAMPLES * 28 * 28];
      int[] labels = new int[EXAMPLES];
      for (int i = 0; i < features.length; i++) {
        features[i] = (float) random.nextDouble();
      }
      for (int i = 0; i < labels.length; i++) {
        labels[i] = i % 10;
      }
      shards.add(WorkerShard.of(w, LabeledImages.of(features, labels, 1, 28, 28, 10)));
    }
    UplinkSettings uplink = new UplinkSettings(CompressorSpec.parse("topk"), factory.dimension() / 100, true, 0.9f,
        1L);
    // a task's closure (the factory, the settings) arrives Java-serialized; a cached block (the shards) through
    // Spark's Kryo with the job's registrations, as a task's result does
    SerializerInstance kryo = new KryoSerializer(new SparkConf(false)
        .set("spark.kryo.registrator", BitopkKryoRegistrator.class.getName())).newInstance();
    SerializerInstance java = new JavaSerializer(new SparkConf(false)).newInstance();
    sameAfterTrip(java, List.of(factory, uplink), "a task's closure");
    sameAfterTrip(kryo, shards.get(0), "a shard");
    WorkerReport report = RoundRehearsal.alone(factory, uplink, shards, passes);
    sameAfterTrip(kryo, report, "the rehearsal's report");
    return String.format("the executor's JVM warmed up in %d ms before its first task (%d pass(es) of a round of "
        + "%d workers rehearsed), %.1f s after it started", Math.round((System.nanoTime() - start) / 1e6), passes,
        WORKERS, ManagementFactory.getRuntimeMXBean().getUptime() / 1e3);
  }

  /** Sends {@code value} through {@code serializer} and back, and checks that it serializes to the same bytes. */
  private static void sameAfterTrip(SerializerInstance serializer, Object value, String what) {
    ClassTag<Object> tag = ClassTag$.MODULE$.apply(Object.class);
    ByteBuffer bytes = serializer.serialize(value, tag);
    Object back = serializer.deserialize(bytes.duplicate(), tag);
    if (!serializer.serialize(back, tag).equals(bytes)) {
      throw new IllegalStateException(what + " did not survive " + serializer.getClass().getSimpleName());
    }
  }
}
