package org.bitopk.lab.evaluation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.bitopk.cli.Main;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.capture.CaptureFiles;
import org.bitopk.job.capture.CaptureFormatTest;
import org.bitopk.job.capture.CapturedVector;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.config.TrainingConfigBuilder;
import org.bitopk.job.engine.DriverState;
import org.bitopk.job.engine.RunListener;
import org.bitopk.job.engine.RunSummary;
import org.bitopk.job.engine.WorkerMemory;
import org.bitopk.job.problem.quadratic.CounterexampleProblem;
import org.bitopk.job.run.TrainingRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train --capture-vectors} and {@code evaluate-compressors} end to end on local[2]: the files hold exactly
 * the vectors the uplink compressor was applied to (checked against the workers' residuals and, for the
 * counterexample, against lr·∇f_i(x_0) written out here), capturing changes no bit of the model, and the
 * evaluation's TopK figures equal a brute-force computation.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CaptureVectorsTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  /** 200 examples, 2 workers, batch 20: 5 rounds per epoch; 4 rounds run. */
  static final String DATASET = "synthetic:n=200,test=100,shape=1x8x8,classes=4";
  static final double DENSITY = 0.05;

  @TempDir
  Path tmp;

  /** The master model at the end, and the workers' residuals after the listed rounds (1-based). */
  static final class Recorder implements RunListener {
    final List<Integer> rounds;
    final Map<Integer, List<WorkerMemory>> memories = new HashMap<>();
    float[] model;

    Recorder(Integer... rounds) {
      this.rounds = List.of(rounds);
    }

    @Override
    public void afterRound(DriverState state) {
      if (rounds.contains(state.iteration())) {
        memories.put(state.iteration(), state.resumePoint().workers());
      }
    }

    @Override
    public void onFinish(RunSummary summary, DriverState state) {
      model = state.masterParameters();
    }
  }

  private TrainingConfigBuilder mlp(String output) {
    return TrainingConfig.builder().dataset(DATASET).model(org.bitopk.job.problem.network.ModelArchitecture.parse("mlp-small")).workers(2).batchSize(20).densityUp(DENSITY).densityDown(DENSITY)
        .learningRate(0.1).maxIterations(4).seed(3).output(tmp.resolve(output).toUri().toString());
  }

  @Test
  void capturedVectorsAreWhatTheCompressorSawAndCapturingChangesNothing() throws IOException {
    Recorder captured = new Recorder(1, 3);
    TrainingRun.execute(SPARK.context(), mlp("captured").captureVectors("3, 1").build(), false, List.of(captured));
    Recorder plain = new Recorder();
    TrainingRun.execute(SPARK.context(), mlp("plain").build(), false, List.of(plain));
    assertArrayEquals(plain.model, captured.model, "capturing changed the trained model");

    Path run = tmp.resolve("captured");
    try (Stream<Path> files = Files.walk(run.resolve("captures"))) {
      assertEquals(List.of("captures/round-000001/worker-0000.bin", "captures/round-000001/worker-0001.bin",
              "captures/round-000003/worker-0000.bin", "captures/round-000003/worker-0001.bin"),
          files.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().startsWith("."))
              .map(p -> run.relativize(p).toString()).sorted().toList());
    }
    assertTrue(Files.readString(run.resolve("config.json")).contains("\"capture-vectors\" : \"1,3\""));

    FileSystem fs = FileSystem.getLocal(new Configuration());
    for (int round : new int[] {1, 3}) {
      for (int worker = 0; worker < 2; worker++) {
        CapturedVector v = CaptureFiles.read(fs, new org.apache.hadoop.fs.Path(
            run.resolve(String.format("captures/round-%06d/worker-%04d.bin", round, worker)).toUri()));
        int d = v.dimension();
        int k = (int) Math.floor(DENSITY * d);
        assertEquals(round, v.round());
        assertEquals(2, v.workers());
        assertEquals(0.1f, v.learningRate());
        assertEquals(DENSITY, v.density());
        assertEquals(k, v.targetK());
        // Error feedback kept c minus the k largest |c| (ties to the lower index) as the worker's residual: so
        // the residual after the round is the captured c with its brute-force TopK coordinates set to 0.
        float[] c = v.values();
        float[] expected = c.clone();
        for (int j : bruteForceTopK(c, k)) {
          expected[j] = 0f;
        }
        float[] residual = captured.memories.get(round).get(worker).residual();
        assertArrayEquals(expected, residual, "round " + round + ", worker " + worker);
        if (round == 1) {
          assertTrue(Arrays.equals(c, new float[d]) == false, "round 1 of worker " + worker + " is all zeros");
        }
      }
    }

    // The evaluation on these captures.
    Path out = tmp.resolve("evaluation");
    StringWriter stdout = new StringWriter();
    StringWriter stderr = new StringWriter();
    int code = Main.execute(new String[] {"evaluate-compressors", "--captures", run.toString(), "--compressors",
        "topk,dgc,sidco-e:stages=1,threshold:tau=auto", "--density", String.valueOf(DENSITY), "--repeats", "2",
        "--out", out.toString()}, null, new PrintWriter(stdout, true), new PrintWriter(stderr, true));
    assertEquals(0, code, stderr.toString());
    List<String> lines = Files.readAllLines(out.resolve("evaluation.csv"));
    assertEquals("round,compressor,vectors,d,target_k,achieved_k_mean,ns_per_element,relative_error_mean,"
        + "topk_relative_error_mean", lines.get(0));
    assertEquals(1 + 2 * 4, lines.size());
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split(",");
      int round = Integer.parseInt(f[0]);
      List<CapturedVector> vectors = new ArrayList<>();
      for (int worker = 0; worker < 2; worker++) {
        vectors.add(CaptureFiles.read(fs, new org.apache.hadoop.fs.Path(
            run.resolve(String.format("captures/round-%06d/worker-%04d.bin", round, worker)).toUri())));
      }
      int d = vectors.get(0).dimension();
      int k = (int) Math.floor(DENSITY * d);
      double topkError = (bruteForceTopKError(vectors.get(0).values(), k)
          + bruteForceTopKError(vectors.get(1).values(), k)) / 2;
      assertEquals(2, Integer.parseInt(f[2]));
      assertEquals(d, Integer.parseInt(f[3]));
      assertEquals(k, Integer.parseInt(f[4]));
      assertEquals(topkError, Double.parseDouble(f[8]), 1e-12 * topkError, line);
      assertTrue(Double.parseDouble(f[6]) > 0, line);
      if (f[1].equals("topk")) {
        assertEquals(k, Double.parseDouble(f[5]), 0.0, line);
        assertEquals(topkError, Double.parseDouble(f[7]), 1e-12 * topkError, line);
      } else {
        double error = Double.parseDouble(f[7]);
        assertTrue(error >= 0 && error <= 1, line);
      }
    }
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("1,threshold:tau=")), lines.toString());
    String md = Files.readString(out.resolve("evaluation.md"));
    assertTrue(md.contains(EvaluationOutput.CLAIM), md);
    assertTrue(md.contains("| sidco-e:stages=1 |"), md);
    byte[] png = Files.readAllBytes(out.resolve("evaluation.png"));
    assertEquals(0x89, png[0] & 0xff);
    assertEquals("PNG", new String(png, 1, 3, java.nio.charset.StandardCharsets.US_ASCII));
    assertTrue(Files.exists(out.resolve("environment.json")));
    assertTrue(Files.exists(out.resolve("_SUCCESS")));
  }

  @Test
  void counterexampleRoundOneHoldsLrTimesTheGradientAtTheStart() throws IOException {
    float lr = 0.01f;
    long seed = 5;
    TrainingConfig config = TrainingConfig.builder().dataset("counterexample").epochs(3).learningRate(lr)
        .densityUp(0.01).densityDown(0.01).seed(seed).captureVectors("1")
        .output(tmp.resolve("counterexample").toUri().toString()).build();
    TrainingRun.execute(SPARK.context(), config, false, List.of());
    // x_0 = 20 + N(0, 1) from the seed, f_i = ½‖x − a_i‖²: c_i = 0 + lr·(x_0 − a_i) in float.
    Random random = new Random(seed);
    float[] x0 = new float[CounterexampleProblem.DIMENSION];
    for (int j = 0; j < x0.length; j++) {
      x0[j] = (float) (20.0 + random.nextGaussian());
    }
    FileSystem fs = FileSystem.getLocal(new Configuration());
    for (int worker = 0; worker < 3; worker++) {
      float[] expected = new float[x0.length];
      for (int j = 0; j < x0.length; j++) {
        expected[j] = 0f + lr * (x0[j] - CounterexampleProblem.CENTERS[worker]);
      }
      CapturedVector v = CaptureFiles.read(fs, new org.apache.hadoop.fs.Path(tmp.resolve(
          "counterexample/captures/round-000001/worker-000" + worker + ".bin").toUri()));
      assertArrayEquals(expected, v.values(), "worker " + worker);
      assertEquals(1, v.targetK());
    }
  }

  @Test
  void badCaptureRoundsAndBadEvaluationInputAreOneLineExitTwo() throws IOException {
    String base = "--dataset " + DATASET + " --model mlp-small --workers 2 --batch-size 20 --max-iterations 4 --quiet";
    String[][] cases = {
        {"0", "--capture-vectors: '0' is not a round number"},
        {"1,x", "--capture-vectors: 'x' is not a round number"},
        {"2,5,2", "--capture-vectors: round 2 is listed twice"},
        {"1,5", "--capture-vectors: round 5 is beyond this run's 4 rounds"}};
    for (String[] c : cases) {
      List<String> args = new ArrayList<>(List.of(base.split(" ")));
      args.addAll(List.of("--capture-vectors", c[0], "--output", tmp.resolve("bad-" + c[0]).toString()));
      Outcome o = main(args.toArray(String[]::new));
      assertEquals(2, o.code, o.err);
      assertTrue(o.err.startsWith("bitopk: " + c[1]), o.err);
      assertEquals(1, o.err.strip().lines().count(), o.err);
      assertTrue(Files.notExists(tmp.resolve("bad-" + c[0])), "nothing written for " + c[0]);
    }

    Path run = tmp.resolve("captures-run");
    FileSystem fs = FileSystem.getLocal(new Configuration());
    CaptureFiles.writer(fs, new org.apache.hadoop.fs.Path(run.toUri()), 2, 0.1, 10)
        .capture(1, 0, 0.1f, CaptureFormatTest.vector(100, 1).values());
    Outcome unknown = main("evaluate-compressors", "--captures", run.toString(), "--compressors", "topk,bogus",
        "--out", tmp.resolve("e1").toString());
    assertEquals(2, unknown.code, unknown.err);
    assertTrue(unknown.err.startsWith("bitopk: --compressors: unknown compressor 'bogus'"), unknown.err);

    Outcome none = main("evaluate-compressors", "--captures", tmp.resolve("nothing").toString(), "--out",
        tmp.resolve("e2").toString());
    assertEquals(2, none.code, none.err);
    assertTrue(none.err.contains("no such directory"), none.err);

    Path file = run.resolve("captures/round-000001/worker-0000.bin");
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, Arrays.copyOf(bytes, bytes.length - 3));
    Outcome truncated = main("evaluate-compressors", "--captures", run.toString(), "--out",
        tmp.resolve("e3").toString());
    assertEquals(2, truncated.code, truncated.err);
    assertTrue(truncated.err.startsWith("bitopk: ") && truncated.err.contains("worker-0000.bin: truncated"),
        truncated.err);
    assertEquals(1, truncated.err.strip().lines().count(), truncated.err);
    for (String dir : new String[] {"e1", "e2", "e3"}) {
      assertTrue(Files.notExists(tmp.resolve(dir).resolve("_SUCCESS")), dir);
    }
  }

  record Outcome(int code, String out, String err) {}

  private Outcome main(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(args, SPARK.context(), new PrintWriter(out, true), new PrintWriter(err, true));
    return new Outcome(code, out.toString(), err.toString());
  }

  /** The k largest |c|, ties to the lower index, by sorting every index. */
  static int[] bruteForceTopK(float[] c, int k) {
    Integer[] order = new Integer[c.length];
    for (int j = 0; j < c.length; j++) {
      order[j] = j;
    }
    Arrays.sort(order, (a, b) -> {
      int byMagnitude = Float.compare(Math.abs(c[b]), Math.abs(c[a]));
      return byMagnitude != 0 ? byMagnitude : Integer.compare(a, b);
    });
    int[] top = new int[k];
    for (int i = 0; i < k; i++) {
      top[i] = order[i];
    }
    return top;
  }

  /** ‖c − TopK(c)‖/‖c‖ from the brute-force selection, in double. */
  static double bruteForceTopKError(float[] c, int k) {
    boolean[] sent = new boolean[c.length];
    for (int j : bruteForceTopK(c, k)) {
      sent[j] = true;
    }
    double all = 0;
    double left = 0;
    for (int j = 0; j < c.length; j++) {
      all += (double) c[j] * c[j];
      if (!sent[j]) {
        left += (double) c[j] * c[j];
      }
    }
    return Math.sqrt(left / all);
  }
}
