package org.bitopk.lab.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.bitopk.cli.Main;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.Minibatch;
import org.bitopk.datasets.ShardSplitter;
import org.bitopk.datasets.TrainTest;
import org.bitopk.datasets.WorkerShard;
import org.bitopk.job.LocalSpark;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The PyTorch peer trains bitopk's problem: on the same weights (the job's x0) and the same minibatch (a worker's
 * shard and epoch order as the job's {@link WorkerShard} cuts it) PyTorch's gradient equals DL4J's to float
 * tolerance; and {@code ddp-dense}, two ranks as a barrier stage, follows {@code bitopk-dense}'s accuracy and test
 * loss evaluation for evaluation (dense SGD on the average of the workers' gradients is the same algorithm); and
 * both split every round's clock into compute, communication and rest; a run stopped and started again from its
 * checkpoint ends where the run that went through ends.
 * Skipped, saying the command, only where the interpreter has no PyTorch (submit/install-torch.sh installs it).
 */
public class DdpPeerTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  static final String DATASET = "synthetic:n=640,test=200,noise=3";
  static final int WORKERS = 2;
  static final int BATCH = 16;

  @TempDir
  static Path tmp;

  @BeforeAll
  static void needsTorch() {
    Assumptions.assumeTrue(hasTorch(), () -> PyTorchPeer.missing().orElse(""));
  }

  /** Whether the interpreter the DDP systems run has PyTorch with gloo (submit/install-torch.sh installs it). */
  public static boolean hasTorch() {
    return PyTorchPeer.missing().isEmpty();
  }

  @Test
  void pyTorchComputesDl4jsGradientOnTheSameWeightsAndMinibatch() throws Exception {
    TrainTest data = Datasets.load(DATASET, null, new Configuration());
    ComparisonSettings settings = new ComparisonSettings(DATASET, null, WORKERS, BATCH, 0.1, 0.01, 7, 5, 60, 2, 0.8);
    FileSystem fs = FileSystem.getLocal(new Configuration());
    Path problem = tmp.resolve("problem");
    DdpProblem.write(fs, new org.apache.hadoop.fs.Path(problem.toUri()), data, settings);
    Path script = PyTorchPeer.script(problem);
    float[] x0 = Dl4jSetup.bitopkInitialParameters(data.train(), 7);
    MultiLayerNetwork network = Dl4jSetup.network(data.train(), 7, 0.1);
    network.setParams(Nd4j.createFromArray(x0).reshape(1, x0.length));
    List<WorkerShard> shards = ShardSplitter.iid(data.train(), WORKERS, 7);
    int roundsPerEpoch = shards.get(0).batchesPerEpoch(BATCH);
    for (int worker = 0; worker < WORKERS; worker++) {
      for (int round : new int[] {0, roundsPerEpoch + 3}) {
        Path out = tmp.resolve("gradient-" + worker + "-" + round + ".f32");
        Process p = new ProcessBuilder(PyTorchPeer.command(script, List.of("gradient", "--problem", problem.toString(),
            "--worker", "" + worker, "--round", "" + round, "--out", out.toString()))).inheritIO().start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, "ddp_peer.py gradient failed");
        float[] torch = DdpProblem.readFloats(fs, new org.apache.hadoop.fs.Path(out.toUri()));
        float[] dl4j = dl4jGradient(network, shards.get(worker).minibatch(round / roundsPerEpoch,
            round % roundsPerEpoch, BATCH, 7, false), data.train().numClasses());
        assertEquals(dl4j.length, torch.length);
        double largest = 0;
        double worst = 0;
        for (int j = 0; j < dl4j.length; j++) {
          largest = Math.max(largest, Math.abs(dl4j[j]));
          worst = Math.max(worst, Math.abs(dl4j[j] - torch[j]));
        }
        assertTrue(largest > 1e-3, "a gradient that is all but zero proves nothing: " + largest);
        assertTrue(worst <= 1e-5 * largest + 1e-7, "worker " + worker + ", round " + round + ": largest difference "
            + worst + " against a largest entry of " + largest);
      }
    }
  }

  /** DL4J's mean gradient over the minibatch (what the job's workers compute, NetworkObjective). */
  private static float[] dl4jGradient(MultiLayerNetwork network, Minibatch batch, int classes) {
    int size = batch.size();
    float[] oneHot = new float[size * classes];
    for (int i = 0; i < size; i++) {
      oneHot[i * classes + batch.labels()[i]] = 1f;
    }
    network.setInput(Nd4j.createFromArray(batch.features()).reshape(size, batch.features().length / size));
    network.setLabels(Nd4j.createFromArray(oneHot).reshape(size, classes));
    network.computeGradientAndScore();
    float[] g = network.getFlattenedGradients().toFloatVector();
    for (int j = 0; j < g.length; j++) {
      g[j] /= size;
    }
    network.clear();
    return g;
  }

  private static Path compared;

  /** One comparison of bitopk-dense and ddp-dense, run by the first test that reads it. */
  private static synchronized Path comparison() {
    if (compared == null) {
      Path out = tmp.resolve("tta");
      StringWriter o = new StringWriter();
      int exit = Main.execute(new String[] {"time-to-accuracy", "--out", out.toString(), "--dataset", DATASET,
          "--systems", "bitopk-dense,ddp-dense", "--workers", "" + WORKERS, "--batch-size", "" + BATCH,
          "--eval-every", "4", "--epochs", "1", "--target", "0.99", "--lr", "0.05", "--max-seconds", "120",
          "--warm-up-seconds", "0", "--seed", "7"}, SPARK.context(), new PrintWriter(o, true),
          new PrintWriter(o, true));
      assertEquals(0, exit, o.toString());
      assertTrue(o.toString().contains("where the rounds' training clock went"), o.toString());
      compared = out;
    }
    return compared;
  }

  @Test
  void ddpDenseFollowsBitopkDenseEvaluationForEvaluation() throws Exception {
    Path out = comparison();
    List<Map<String, String>> bitopk = TimeToAccuracyCommandTest.table(out.resolve("trace-bitopk-dense.csv"));
    List<Map<String, String>> ddp = TimeToAccuracyCommandTest.table(out.resolve("trace-ddp-dense.csv"));
    assertEquals(rounds(bitopk), rounds(ddp));
    assertTrue(bitopk.size() >= 4, "evaluations: " + bitopk.size());
    long d = TimeToAccuracyCommandTest.D;
    for (int i = 0; i < ddp.size(); i++) {
      double a = Double.parseDouble(bitopk.get(i).get("accuracy"));
      double b = Double.parseDouble(ddp.get(i).get("accuracy"));
      assertEquals(a, b, 1.5 / 200, "accuracy at round " + ddp.get(i).get("rounds"));
      double la = Double.parseDouble(bitopk.get(i).get("test_loss"));
      double lb = Double.parseDouble(ddp.get(i).get("test_loss"));
      assertEquals(la, lb, 1e-3 * Math.abs(la), "test loss at round " + ddp.get(i).get("rounds"));
      long rounds = Long.parseLong(ddp.get(i).get("rounds"));
      // a ring all-reduce of 4d bytes: every rank sends 2(P-1)/P of it, P ranks
      assertEquals(rounds * 2 * (WORKERS - 1) * 4 * d, Long.parseLong(ddp.get(i).get("bytes")));
    }
    assertTrue(Files.readString(out.resolve("time-to-accuracy.csv")).contains("ranks, hosts"), "details name the"
        + " placement");
  }

  /**
   * Every evaluation interval's rounds split into compute, communication and rest, none negative, adding up to the
   * interval's training clock; over the whole run the same against the row's wall time. The split is measured on
   * both sides of the identity by different clocks' readings only in bitopk (the rest is what the job's times leave
   * of the clock, so a negative rest would show); in DDP rank 0 reads one clock at the edges of every part, so the
   * identity checks that the parts are written, carried and averaged over the right rounds. The tolerance is the
   * files' printing: 6 significant digits in the trace and the table (at most 5e-6 of each figure), the peer's
   * seconds to the microsecond. Dense DDP's communication is the timed all-reduces' and their payload, counted in
   * the hook that times them, is 4d a round: the ring's 2(P-1)/P of it from each of the P ranks.
   */
  @Test
  void everyRoundSplitsIntoComputeCommunicationAndRestThatAddUpToItsClock() throws Exception {
    Path out = comparison();
    long d = TimeToAccuracyCommandTest.D;
    for (String system : List.of("bitopk-dense", "ddp-dense")) {
      List<Map<String, String>> trace = TimeToAccuracyCommandTest.table(out.resolve("trace-" + system + ".csv"));
      assertEquals("", trace.get(0).get("ms_compute"), "no rounds before the first evaluation");
      double communicationMs = 0;
      for (int i = 1; i < trace.size(); i++) {
        Map<String, String> row = trace.get(i);
        long rounds = Long.parseLong(row.get("rounds")) - Long.parseLong(trace.get(i - 1).get("rounds"));
        double wallMs = 1000 * (Double.parseDouble(row.get("seconds")) - Double.parseDouble(trace.get(i - 1)
            .get("seconds")));
        double sum = 0;
        for (String term : List.of("ms_compute", "ms_communication", "ms_rest")) {
          double ms = Double.parseDouble(row.get(term));
          assertTrue(ms >= 0, system + " " + term + " " + ms + " at round " + row.get("rounds"));
          sum += ms * rounds;
        }
        communicationMs += Double.parseDouble(row.get("ms_communication")) * rounds;
        double tolerance = 1e-5 * (sum + 1000 * (Double.parseDouble(row.get("seconds"))
            + Double.parseDouble(trace.get(i - 1).get("seconds")))) + 0.01;
        assertEquals(wallMs, sum, tolerance, system + ": the split of rounds to " + row.get("rounds"));
        if (system.startsWith("ddp")) {
          assertEquals(Long.parseLong(row.get("rounds")) * 2 * (WORKERS - 1) * 4 * d, Long.parseLong(row.get(
              "bytes")), "the timed all-reduces' bytes to round " + row.get("rounds"));
        }
      }
      assertTrue(communicationMs > 0, system + ": no communication timed");
      Map<String, String> result = TimeToAccuracyCommandTest.table(out.resolve("time-to-accuracy.csv")).stream()
          .filter(r -> r.get("system").equals(system)).findFirst().orElseThrow();
      long rounds = Long.parseLong(trace.get(trace.size() - 1).get("rounds"));
      double perRound = Double.parseDouble(result.get("ms_compute")) + Double.parseDouble(result.get(
          "ms_communication")) + Double.parseDouble(result.get("ms_rest"));
      double wallMs = 1000 * Double.parseDouble(result.get("wall_seconds"));
      assertEquals(wallMs, perRound * rounds, 1e-5 * 2 * wallMs + 0.01, system + ": the split of all its rounds");
    }
  }

  /**
   * A ddp-dense run stopped after round 12 (a checkpoint there) and started again from its checkpoint ends with the
   * parameters of the run that went through (the minibatch order is fixed, so the rounds after it are the same);
   * the points before the checkpoint are the first run's, and the seconds between the two runs count in the clock.
   * With "powersgd-1" in place of "dense" it holds too (each rank's error feedback and warm-start memory restored;
   * it compresses from iteration 10), about 35 s more than the test suite's budget leaves room for.
   */
  @Test
  void aRunStoppedAndStartedAgainFromItsCheckpointEndsWhereTheRunThatWentThroughEnds() throws Exception {
    String system = "dense";
    TrainTest data = Datasets.load(DATASET, null, new Configuration());
    ComparisonSettings settings = new ComparisonSettings(DATASET, null, WORKERS, BATCH, 0.05, 0.01, 7, 4, 60, 2, 0.99);
    FileSystem fs = FileSystem.getLocal(new Configuration());
    Path problem = tmp.resolve("resume-problem-" + system);
    DdpProblem.write(fs, new org.apache.hadoop.fs.Path(problem.toUri()), data, settings);
    Path script = PyTorchPeer.script(problem);
    Path through = tmp.resolve("through-" + system);
    loopback(script, problem, through, system, 20, false);
    Path stopped = tmp.resolve("stopped-" + system);
    loopback(script, problem, stopped, system, 12, true);
    assertEquals("12", Files.readString(stopped.resolve(DdpRestarts.CHECKPOINT_ROUND)).strip());
    List<String> first = Files.readAllLines(stopped.resolve("trace.csv"));
    Thread.sleep(1500);
    loopback(script, problem, stopped, system, 20, true);

    List<String> second = Files.readAllLines(stopped.resolve("trace.csv"));
    assertEquals(first, second.subList(0, first.size()), "the points up to the checkpoint, restored");
    // rounds,seconds,bytes,accuracy,test_loss after two comment lines and the header
    List<String[]> points = second.subList(3, second.size()).stream().map(l -> l.split(",")).toList();
    assertEquals(List.of("0", "4", "8", "12", "16", "20"), points.stream().map(p -> p[0]).toList());
    double gap = Double.parseDouble(points.get(4)[1]) - Double.parseDouble(points.get(3)[1]);
    assertTrue(gap >= 1.5, "the clock counts the seconds between the runs: " + gap);

    float[] whole = DdpProblem.readFloats(fs, hadoop(through.resolve("params-20.f32")));
    float[] resumed = DdpProblem.readFloats(fs, hadoop(stopped.resolve("params-20.f32")));
    float[] atCheckpoint = DdpProblem.readFloats(fs, hadoop(through.resolve("params-12.f32")));
    double largest = 0;
    double worst = 0;
    double moved = 0;
    for (int j = 0; j < whole.length; j++) {
      largest = Math.max(largest, Math.abs(whole[j]));
      worst = Math.max(worst, Math.abs(whole[j] - resumed[j]));
      moved = Math.max(moved, Math.abs(whole[j] - atCheckpoint[j]));
    }
    assertTrue(worst <= 1e-6 * largest, system + ": largest difference " + worst + " against entries up to " + largest);
    assertTrue(moved > 1000 * worst + 1e-4, "rounds 13 to 20 moved the parameters by " + moved);
  }

  /** One DDP run of WORKERS ranks and their rendezvous on loopback, as processes of this test, into {@code out}. */
  private static void loopback(Path script, Path problem, Path out, String system, int rounds, boolean checkpoint)
      throws Exception {
    Files.createDirectories(out);
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    List<Process> processes = new ArrayList<>();
    try {
      processes.add(new ProcessBuilder(PyTorchPeer.command(script, List.of("store", "--address", "127.0.0.1",
          "--port", "" + port, "--world-size", "" + WORKERS, "--seconds", "120"))).redirectErrorStream(true)
          .redirectOutput(out.resolve("store.log").toFile()).start());
      for (int r = 0; r < WORKERS; r++) {
        List<String> arguments = new ArrayList<>(List.of("train", "--problem", problem.toString(), "--store",
            "127.0.0.1:" + port, "--rank", "" + r, "--world-size", "" + WORKERS, "--bind", "127.0.0.1", "--system",
            system, "--lr", "0.05", "--eval-every", "4", "--max-seconds", "1e9", "--max-rounds", "" + rounds,
            "--target", "0.99", "--out", out.toString()));
        if (checkpoint) {
          arguments.add("--checkpoint");
        }
        ProcessBuilder rank = new ProcessBuilder(PyTorchPeer.command(script, arguments)).redirectErrorStream(true)
            .redirectOutput(out.resolve("rank-" + r + ".log").toFile());
        rank.environment().put("OMP_NUM_THREADS", "1");
        processes.add(rank.start());
      }
      for (Process p : processes) {
        assertTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, "ddp_peer.py failed; rank 0's log:\n"
            + Files.readString(out.resolve("rank-0.log")));
      }
    } finally {
      processes.forEach(Process::destroyForcibly);
    }
  }

  private static org.apache.hadoop.fs.Path hadoop(Path path) {
    return new org.apache.hadoop.fs.Path(path.toUri());
  }

  private static List<String> rounds(List<Map<String, String>> trace) {
    List<String> rounds = new ArrayList<>();
    trace.forEach(row -> rounds.add(row.get("rounds")));
    return rounds;
  }
}
