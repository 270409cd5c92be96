package org.bitopk.lab.baseline;

import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.BarrierTaskInfo;
import org.apache.spark.api.java.JavaRDD;
import org.bitopk.job.problem.Evaluation;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.factory.Nd4j;
import scala.collection.JavaConverters;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;

/**
 * PyTorch DistributedDataParallel as Spark's {@code TorchDistributor} runs it: a barrier stage of P tasks, each
 * starting one {@code ddp_peer.py} rank on its executor's host (so P / hosts ranks per worker host), the rendezvous
 * (a TCPStore) on the driver's host, gloo between the ranks' own addresses. Every rank trains bitopk's problem
 * ({@link DdpProblem}); rank 0 writes its trace and, at every evaluation, its parameters, which are evaluated here by
 * the same function as every other system's, with where its rounds' time went ({@link RoundSplit}, measured by the
 * script's RoundTimer). Bytes are what a ring all-reduce sends: every rank 2(P−1)/P of what it hands to all-reduce
 * (counted in the hooks: 4d a round for dense), summed over the ranks.
 */
final class DdpSystem implements ComparedSystem {
  static final String PREFIX = "ddp-";
  /** The name's rest to the script's system. */
  static final Map<String, String> VARIANTS = Map.of("dense", "dense", "fp16", "fp16", "powersgd-1", "powersgd-1",
      "powersgd-4", "powersgd-4");
  private static final long STORE_GRACE_SECONDS = 60;

  private final String variant;

  DdpSystem(String variant) {
    if (!VARIANTS.containsKey(variant)) {
      throw new IllegalArgumentException("no DDP system " + variant);
    }
    this.variant = variant;
  }

  @Override
  public String name() {
    return PREFIX + variant;
  }

  @Override
  public SystemResult run(Context context) throws Exception {
    ComparisonSettings s = context.settings();
    FileSystem fs = context.directory().getFileSystem(context.sc().hadoopConfiguration());
    if (!"file".equals(fs.getUri().getScheme())) {
      throw new IllegalArgumentException("the DDP systems need --out on a local file system that every worker host "
          + "sees at the same path (the network lab's), got " + context.directory());
    }
    Path problem = new Path(context.directory(), String.format(Locale.ROOT, "ddp-problem-%d-workers-%d-epochs",
        s.workers(), s.epochs()));
    DdpProblem.write(fs, problem, context.data(), s);
    java.nio.file.Path script = PyTorchPeer.script(local(fs, problem));
    Path runDir = new Path(context.directory(), context.label());
    if (fs.exists(runDir)) {
      fs.delete(runDir, true);
    }
    fs.mkdirs(runDir);
    java.nio.file.Path run = local(fs, runDir);
    long limit = (long) Math.min(Math.max(s.maxSeconds(), 60) * 3 + 600, 6 * 3600);
    String driverHost = InetAddress.getByName(context.sc().getConf().get("spark.driver.host", "127.0.0.1"))
        .getHostAddress();
    List<String> arguments = new ArrayList<>(List.of("train", "--problem", local(fs, problem).toString(),
        "--world-size", Integer.toString(s.workers()), "--system", VARIANTS.get(variant),
        "--lr", Double.toString(s.learningRate()), "--eval-every", Integer.toString(s.evalEvery()),
        "--max-seconds", Double.toString(Math.min(s.maxSeconds(), 1e9)), "--max-rounds",
        Long.toString(Math.min(s.maxRounds(), Integer.MAX_VALUE)), "--target", Double.toString(s.target()),
        "--out", run.toString()));
    if (s.stopAtTarget()) {
      arguments.add("--stop-at-target");
    }
    if (context.fault().planned()) {
      arguments.addAll(List.of("--checkpoint", "--progress", run.resolve(DdpRestarts.PROGRESS).toString()));
    }
    DdpRestarts.Outcome outcome = DdpRestarts.run(context, run, () -> stage(context, script, arguments, run, limit,
        driverHost));
    Trace trace = trace(fs, runDir, context);
    Map<String, List<Integer>> placement = new TreeMap<>();
    for (String rank : outcome.ranks()) {
      String[] parts = rank.split("\t", 4);
      placement.computeIfAbsent(parts[1], h -> new ArrayList<>()).add(Integer.parseInt(parts[0]));
    }
    String details = String.format(Locale.ROOT, "PyTorch %s DDP (gloo), %s; %d ranks, hosts %s; batch %d; SGD lr "
        + "%s; run directory %s; bytes = a ring all-reduce's, 2(P-1)/P of each rank's all-reduce payload, summed "
        + "over the ranks%s; all-reduce hidden behind the backward %.1f ms/round (part of compute)%s",
        torchVersion(fs, runDir), describe(fs, runDir), s.workers(), placement, s.batchSize(), s.learningRate(),
        runDir.getName(), context.fault().planned() ? " (of the rounds that led to the model; a restart's rounds "
        + "run again are not counted)" : "", overlappedMs(fs, runDir), context.fault().planned()
        ? "; checkpoint at every evaluation" + outcome.history() : "");
    return outcome.failure() == null ? SystemResult.ok(name(), details, trace)
        : SystemResult.failed(name(), details, trace, outcome.failure());
  }

  /**
   * One barrier stage of P ranks with a rendezvous of its own; each rank's line. A stage that did not end with every
   * rank done leaves its rendezvous waiting for ranks that are gone: it is stopped at once.
   */
  private static List<String> stage(Context context, java.nio.file.Path script, List<String> arguments,
      java.nio.file.Path run, long limit, String driverHost) throws IOException, InterruptedException {
    int workers = context.settings().workers();
    int port = freePort(driverHost);
    Process store = new ProcessBuilder(PyTorchPeer.command(script, List.of("store", "--address", driverHost,
        "--port", Integer.toString(port), "--world-size", Integer.toString(workers), "--seconds",
        Long.toString(limit)))).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(run.resolve("store.log").toFile())).start();
    List<String> ranks = List.of();
    try {
      List<String> full = new ArrayList<>(arguments);
      full.addAll(List.of("--store", driverHost + ":" + port));
      List<Integer> ids = new ArrayList<>();
      for (int r = 0; r < workers; r++) {
        ids.add(r);
      }
      JavaRDD<Integer> partitions = context.sc().parallelize(ids, workers);
      ranks = JavaRDD.fromRDD(partitions.rdd().barrier().mapPartitions(
          new Rank(PyTorchPeer.command(script, full), run.toString(), limit), false,
          ClassTag$.MODULE$.apply(String.class)), ClassTag$.MODULE$.apply(String.class)).collect();
      return ranks;
    } finally {
      if (ranks.isEmpty() || DdpRestarts.failure(ranks) != null
          || !store.waitFor(STORE_GRACE_SECONDS, TimeUnit.SECONDS)) {
        store.destroyForcibly();
      }
    }
  }

  /** Rank 0's trace, each point's parameters evaluated here (and then removed). */
  private static Trace trace(FileSystem fs, Path runDir, Context context) throws IOException {
    Path file = new Path(runDir, "trace.csv");
    Trace.Builder trace = new Trace.Builder();
    if (!fs.exists(file)) {
      return trace.build();
    }
    MultiLayerNetwork network = Dl4jSetup.network(context.data().train(), context.settings().seed(),
        context.settings().learningRate());
    long previous = 0;
    for (String line : lines(fs, file)) {
      if (line.startsWith("#") || line.startsWith("rounds")) {
        continue;
      }
      String[] f = line.split(",");
      Path params = new Path(runDir, "params-" + f[0] + ".f32");
      float[] x = DdpProblem.readFloats(fs, params);
      network.setParams(Nd4j.createFromArray(x).reshape(1, x.length));
      Evaluation e = Dl4jSetup.evaluate(network, context.data().test());
      long rounds = Long.parseLong(f[0]);
      trace.add(new TracePoint(rounds, Double.parseDouble(f[1]), Long.parseLong(f[2]), e.accuracy(), e.loss()),
          split(rounds - previous, f));
      previous = rounds;
      fs.delete(params, false);
    }
    return trace.build();
  }

  /**
   * The split of a trace line's rounds from its mean milliseconds per round (ddp_peer.py's RoundTimer): compute,
   * communication, then the optimizer's step and the rest, which are this comparison's rest.
   */
  static RoundSplit split(long rounds, String[] line) {
    return RoundSplit.ofMeans(rounds, Double.parseDouble(line[5]), Double.parseDouble(line[6]),
        Double.parseDouble(line[7]) + Double.parseDouble(line[8]));
  }

  /** Rank 0's mean milliseconds per round of all-reduce hidden behind the backward's computing, over its run. */
  private static double overlappedMs(FileSystem fs, Path runDir) throws IOException {
    Path file = new Path(runDir, "trace.csv");
    double sum = 0;
    long rounds = 0;
    long previous = 0;
    for (String line : fs.exists(file) ? lines(fs, file) : List.<String>of()) {
      if (!line.startsWith("#") && !line.startsWith("rounds")) {
        String[] f = line.split(",");
        long r = Long.parseLong(f[0]);
        sum += (r - previous) * Double.parseDouble(f[9]);
        rounds += r - previous;
        previous = r;
      }
    }
    return rounds == 0 ? 0 : sum / rounds;
  }

  private static String describe(FileSystem fs, Path runDir) throws IOException {
    Path file = new Path(runDir, "trace.csv");
    return fs.exists(file) ? lines(fs, file).get(0).replaceFirst("^# *", "") : "no trace";
  }

  private static String torchVersion(FileSystem fs, Path runDir) throws IOException {
    Path file = new Path(runDir, "trace.csv");
    return fs.exists(file) && lines(fs, file).size() > 1 && lines(fs, file).get(1).startsWith("# torch ")
        ? lines(fs, file).get(1).substring(8) : "";
  }

  private static List<String> lines(FileSystem fs, Path file) throws IOException {
    try (InputStream in = fs.open(file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    }
  }

  private static java.nio.file.Path local(FileSystem fs, Path path) {
    return java.nio.file.Path.of(fs.makeQualified(path).toUri());
  }

  private static int freePort(String address) throws IOException {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(address, 0));
      return socket.getLocalPort();
    }
  }

  /**
   * One barrier task: rank = its partition, bound to its executor's address; runs the script to the end (at most
   * {@code limitSeconds}) and reports "rank TAB host TAB exit status TAB the output's last line" instead of failing,
   * so that Spark does not start the stage again against a rendezvous that has moved on.
   */
  static final class Rank extends AbstractFunction1<scala.collection.Iterator<Integer>,
      scala.collection.Iterator<String>> implements Serializable {
    private static final long serialVersionUID = 1L;
    static final int KILLED = -5;
    private final List<String> command;
    private final String runDir;
    private final long limitSeconds;

    Rank(List<String> command, String runDir, long limitSeconds) {
      this.command = List.copyOf(command);
      this.runDir = runDir;
      this.limitSeconds = limitSeconds;
    }

    @Override
    public scala.collection.Iterator<String> apply(scala.collection.Iterator<Integer> partition) {
      BarrierTaskContext task = BarrierTaskContext.get();
      int rank = task.partitionId();
      BarrierTaskInfo[] infos = task.getTaskInfos();
      String address = infos[rank].address();
      String host = address.contains(":") ? address.substring(0, address.lastIndexOf(':')) : address;
      String result;
      try {
        String bind = InetAddress.getByName(host).getHostAddress();
        List<String> full = new ArrayList<>(command);
        full.addAll(List.of("--rank", Integer.toString(rank), "--bind", bind));
        java.nio.file.Path log = java.nio.file.Path.of(runDir, "rank-" + rank + ".log");
        ProcessBuilder builder = new ProcessBuilder(full).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().put("OMP_NUM_THREADS", "1");
        Process p = builder.start();
        int status = await(p, task);
        String last = Files.readAllLines(log).stream().filter(l -> !l.isBlank()).reduce((a, b) -> b)
            .orElse("no output");
        result = rank + "\t" + bind + "\t" + status + "\t" + (status == -1 ? "stopped after " + limitSeconds + " s"
            : status == KILLED ? "stopped: its barrier stage failed" : status == 0 ? "" : last);
      } catch (IOException e) {
        result = rank + "\t" + host + "\t-2\tcannot start " + command.get(0) + ": " + e.getMessage();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        result = rank + "\t" + host + "\t-3\tinterrupted";
      }
      return JavaConverters.asScalaIterator(List.of(result).iterator());
    }

    /**
     * The rank's exit status; -1 past the limit, {@value #KILLED} when Spark killed the task (it does so to every
     * task of a barrier stage one of whose tasks failed, without interrupting them): the rank is stopped then, and
     * its task slot is free for a restart.
     */
    private int await(Process p, BarrierTaskContext task) throws InterruptedException {
      long deadline = System.nanoTime() + limitSeconds * 1_000_000_000L;
      while (!p.waitFor(1, TimeUnit.SECONDS)) {
        if (task.isInterrupted() || System.nanoTime() > deadline) {
          p.destroyForcibly();
          p.waitFor(10, TimeUnit.SECONDS);
          return task.isInterrupted() ? KILLED : -1;
        }
      }
      return p.exitValue();
    }
  }
}
