package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.compression.Compressor;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.ErrorFeedback;
import org.bitopk.compression.SparseVector;
import org.bitopk.compression.ValueFormat;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.config.DownlinkScheme;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.config.TrainingConfigBuilder;
import org.bitopk.job.problem.quadratic.CounterexampleProblem;
import org.bitopk.job.run.RunPlans;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The uplink feedbacks (EF14, EF21, none) and downlink schemes (server EF, EF21-P) through the real driver/executor
 * path on the counterexample (d = 100, P = 3, f_i(x) = ½‖x − c_i‖², full gradients), against sequential references
 * written here from the papers' pseudo-code.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchemesSparkTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  /**
   * A run's per-round records, its final master model (= every replica's, checked each round) and the run's model
   * (MCM's central model; the master otherwise).
   */
  private static final class Outcome {
    final RunRecorder recorder = new RunRecorder();
    float[] master;
    float[] model;
  }

  private Outcome run(Mode mode, UplinkFeedback feedback, DownlinkScheme scheme, String uplink, String downlink,
      double lr, int rounds, long seed, ResumePoint resume, List<RunListener> extra) {
    return run(mode, feedback, scheme, uplink, downlink, null, null, lr, rounds, seed, resume, extra);
  }

  private Outcome run(Mode mode, UplinkFeedback feedback, DownlinkScheme scheme, String uplink, String downlink,
      Double upRate, Double downRate, double lr, int rounds, long seed, ResumePoint resume,
      List<RunListener> extra) {
    return run(mode, feedback, scheme, uplink, downlink, upRate, downRate, ValueFormat.FP32, ValueFormat.FP32, lr,
        rounds, seed, resume, extra);
  }

  private Outcome run(Mode mode, UplinkFeedback feedback, DownlinkScheme scheme, String uplink, String downlink,
      Double upRate, Double downRate, ValueFormat valuesUp, ValueFormat valuesDown, double lr, int rounds, long seed,
      ResumePoint resume, List<RunListener> extra) {
    TrainingConfigBuilder settings = TrainingConfig.builder().dataset(TrainingConfig.COUNTEREXAMPLE).mode(mode)
        .uplink(CompressorSpec.parse(uplink)).downlink(CompressorSpec.parse(downlink)).densityUp(0.01)
        .densityDown(0.01).learningRate(lr).epochs(rounds).seed(seed).consistencyCheckEvery(1)
        .uplinkFeedback(feedback);
    if (scheme != null) {
      settings.downlinkScheme(scheme);
    }
    TrainingConfig config = settings
        .upMemoryRate(upRate == null ? OptionalDouble.empty() : OptionalDouble.of(upRate))
        .downMemoryRate(downRate == null ? OptionalDouble.empty() : OptionalDouble.of(downRate))
        .valuesUp(valuesUp).valuesDown(valuesDown).build();
    Outcome outcome = new Outcome();
    List<RunListener> listeners = new ArrayList<>(extra);
    listeners.add(outcome.recorder);
    listeners.add(new RunListener() {
      @Override
      public void onFinish(RunSummary summary, DriverState state) {
        outcome.master = state.masterParameters();
        outcome.model = state.modelParameters();
      }
    });
    JavaSparkContext sc = SPARK.context();
    try (CounterexampleProblem problem = new CounterexampleProblem(sc, seed)) {
      Trainer<?> trainer = new Trainer<>(sc, RunPlans.of(config, problem, sc.defaultParallelism()), problem,
          "schemes-" + feedback + "-" + scheme + "-" + uplink + "-" + downlink + "-" + upRate + "-" + downRate
              + "-" + valuesUp + "-" + valuesDown + "-" + lr + "-" + seed
              + (resume != null ? "-resumed" : ""), listeners);
      if (resume != null) {
        trainer.resumeFrom(resume);
      }
      trainer.run();
    }
    return outcome;
  }

  private static float[] initial(long seed) {
    try (CounterexampleProblem p = new CounterexampleProblem(SPARK.context(), seed)) {
      return p.initialParameters();
    }
  }

  private static float[] gradient(float[] x, float center) {
    float[] g = new float[x.length];
    for (int j = 0; j < x.length; j++) {
      g[j] = x[j] - center;
    }
    return g;
  }

  /**
   * EF21 (Richtárik et al. 2021, Algorithm 1; initialisation g_i⁰ = ∇f_i(x⁰) as in the authors' DL/EF21_100K.py)
   * with server error feedback or EF21-P on the downlink, written out sequentially: the Spark run's gaps and final
   * model equal it bit for bit, for several step sizes.
   */
  @ParameterizedTest(name = "lr {0}, {1} rounds, downlink {2}")
  @CsvSource({"0.01, 120, EF", "0.005, 80, EF", "0.01, 120, EF21_P", "0.02, 60, EF21_P"})
  void ef21EqualsASequentialReference(float lr, int rounds, DownlinkScheme scheme) {
    long seed = 3;
    Outcome run = run(Mode.BIDIRECTIONAL, UplinkFeedback.EF21, scheme, "topk", "topk", lr, rounds, seed, null,
        List.of());
    float[] w = initial(seed);
    int d = w.length;
    int p = CounterexampleProblem.CENTERS.length;
    float[][] gi = new float[p][];
    float[] g = new float[d];
    Compressor topk = CompressorSpec.parse("topk").create(0);
    float[] serverResidual = new float[d]; // e_s = w − x (server EF) or r = x − w (EF21-P)
    for (int t = 0; t < rounds; t++) {
      double gap = CounterexampleProblem.objective(w) - CounterexampleProblem.optimum();
      assertEquals(gap, run.recorder.iterations.get(t).optimalityGap(), 0.0, "round " + t);
      // workers: c_i = ∇f_i(w) − g_i compressed (all of it at t = 0, g_i⁰ = ∇f_i(x⁰)); g_i ← g_i + c_i
      float[] sum = new float[d];
      boolean[] touched = new boolean[d];
      for (int i = 0; i < p; i++) {
        float[] grad = gradient(w, CounterexampleProblem.CENTERS[i]);
        if (gi[i] == null) {
          gi[i] = grad.clone();
          for (int j = 0; j < d; j++) {
            sum[j] += grad[j];
            touched[j] = true;
          }
          continue;
        }
        float[] c = new float[d];
        for (int j = 0; j < d; j++) {
          c[j] = grad[j] - gi[i][j];
        }
        SparseVector sent = SparseVector.gather(c, topk.select(c, 1));
        for (int n = 0; n < sent.nnz(); n++) {
          int j = sent.index(n);
          gi[i][j] = gi[i][j] + sent.value(n);
          sum[j] += sent.value(n);
          touched[j] = true;
        }
      }
      // server: g ← g + mean c_i; step = lr·g
      float[] step = new float[d];
      for (int j = 0; j < d; j++) {
        if (touched[j]) {
          g[j] = g[j] + sum[j] / p;
        }
        step[j] = lr * g[j];
      }
      if (scheme == DownlinkScheme.EF) {
        // DoubleSqueeze: c = e_s + step, send C(c), e_s = c − C(c), w ← w − C(c)
        float[] c = new float[d];
        for (int j = 0; j < d; j++) {
          c[j] = serverResidual[j] + step[j];
        }
        SparseVector sent = SparseVector.gather(c, topk.select(c, 1));
        System.arraycopy(c, 0, serverResidual, 0, d);
        for (int n = 0; n < sent.nnz(); n++) {
          serverResidual[sent.index(n)] = 0f;
          w[sent.index(n)] = w[sent.index(n)] - sent.value(n);
        }
      } else {
        // EF21-P with r = x − w: x' − w = r − step, p = C(x' − w), w ← w + p, r ← x' − w'
        float[] diff = new float[d];
        for (int j = 0; j < d; j++) {
          diff[j] = serverResidual[j] + -1f * step[j];
        }
        SparseVector sent = SparseVector.gather(diff, topk.select(diff, 1));
        System.arraycopy(diff, 0, serverResidual, 0, d);
        for (int n = 0; n < sent.nnz(); n++) {
          serverResidual[sent.index(n)] = 0f;
          w[sent.index(n)] = w[sent.index(n)] + sent.value(n);
        }
      }
    }
    assertArrayEquals(w, run.master, "final model");
  }

  /**
   * For a compressor that selects by magnitude, C(−v) = −C(v) with the same random stream, so EF21-P's
   * p = C(x' − w), w ← w + p is server error feedback's w ← w − C(e_s + a) with e_s = w − x, bit for bit: same
   * gaps, bytes and final model (every replica's, checked each round), for TopK and for Random-k.
   */
  @ParameterizedTest(name = "uplink {0}, downlink {1}, feedback {2}")
  @CsvSource({"topk, topk, EF14", "topk, topk, EF21", "randomk, randomk, EF14", "topk, randomk, NONE"})
  void ef21pEqualsServerErrorFeedbackBitForBit(String uplink, String downlink, UplinkFeedback feedback) {
    Outcome ef = run(Mode.BIDIRECTIONAL, feedback, DownlinkScheme.EF, uplink, downlink, 0.01, 60, 8, null,
        List.of());
    Outcome p = run(Mode.BIDIRECTIONAL, feedback, DownlinkScheme.EF21_P, uplink, downlink, 0.01, 60, 8, null,
        List.of());
    for (int t = 0; t < 60; t++) {
      IterationRecord a = ef.recorder.iterations.get(t);
      IterationRecord b = p.recorder.iterations.get(t);
      assertEquals(a.optimalityGap(), b.optimalityGap(), 0.0, "gap, round " + t);
      assertEquals(a.downBytes(), b.downBytes(), "down bytes, round " + t);
      assertEquals(a.upBytes(), b.upBytes(), "up bytes, round " + t);
    }
    assertArrayEquals(ef.master, p.master);
  }

  /**
   * Where the two differ: a selector that is not odd (here the k largest signed values, not magnitudes) sends
   * different coordinates for C(x' − w) than for −C(w − x'), so the broadcasts part after the first round.
   */
  @Test
  void ef21pDiffersFromServerErrorFeedbackForACompressorThatIsNotOdd() {
    int d = 8;
    Compressor largestSigned = (v, k) -> {
      Integer[] order = new Integer[v.length];
      for (int i = 0; i < v.length; i++) {
        order[i] = i;
      }
      java.util.Arrays.sort(order, (a, b) -> Float.compare(v[b], v[a]));
      int[] chosen = new int[k];
      for (int i = 0; i < k; i++) {
        chosen[i] = order[i];
      }
      java.util.Arrays.sort(chosen);
      return org.bitopk.compression.Selection.of(chosen, k);
    };
    DownlinkStrategy.ServerDownlink ef = CompressedDownlink.openWith(largestSigned, 2,
        ErrorFeedback.enabled(d));
    DownlinkStrategy.ServerDownlink p = ModelDifferenceDownlink.openWith(largestSigned, 2,
        ErrorFeedback.enabled(d));
    float[] step = {0.5f, -3f, 1f, 0.25f, -0.75f, 2f, -1.5f, 0.125f};
    SparseVector a = ef.send(step, new int[0]).update();
    SparseVector b = p.send(step, new int[0]).update();
    assertArrayEquals(new int[] {2, 5}, a.indices(), "server EF sends the largest of e_s + a");
    assertArrayEquals(new int[] {1, 6}, b.indices(), "EF21-P sends the largest of x' − w = −(e_s + a)");
  }

  /**
   * Known answer on a strongly convex quadratic with full gradients and a constant step (Zou's counterexample,
   * unidirectional, TopK k = 1 up): EF21 converges linearly to the optimum (Richtárik et al. 2021, Theorem 2 under
   * PL), while classic error feedback stalls at a gap of order 10 (Zou et al.; algorithms.md).
   */
  @Test
  void ef21ConvergesWhereClassicErrorFeedbackStalls() {
    int rounds = 1500;
    Outcome ef21 = run(Mode.UNIDIRECTIONAL, UplinkFeedback.EF21, null, "topk", "none", 0.01, rounds, 1, null,
        List.of());
    Outcome ef14 = run(Mode.UNIDIRECTIONAL, UplinkFeedback.EF14, null, "topk", "none", 0.01, rounds, 1, null,
        List.of());
    double start = ef21.recorder.iterations.get(0).optimalityGap();
    double endEf21 = ef21.recorder.iterations.get(rounds - 1).optimalityGap();
    double endEf14 = ef14.recorder.meanGap(rounds / 2, rounds);
    System.out.printf("EF21 gap %.3e -> %.3e; EF14 mean gap over the last half %.3f%n", start, endEf21, endEf14);
    assertTrue(endEf21 < 1e-5 * start, "EF21's final gap " + endEf21);
    double half = ef21.recorder.iterations.get(rounds / 2 - 1).optimalityGap();
    // still contracting over the second half; near a gap of 1e-8 float32 rounding of x slows it (measured 0.013)
    assertTrue(endEf21 < 5e-2 * half, "EF21 is still contracting linearly: " + half + " -> " + endEf21);
    assertTrue(endEf14 > 5, "classic EF's mean gap over the last half " + endEf14);
  }

  /**
   * A run resumed from round 25's state (server g or h and e_s, r or MCM's last message, workers' g_i or h_i, the
   * compressors' streams) continues bit for bit.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"EF21/EF/topk/topk", "EF21/EF21_P/topk/topk", "NONE/EF21_P/topk/topk",
      "EF14/EF21_P/topk/topk", "ARTEMIS/MCM/natural/randomk:scaled"})
  void resumedRunContinuesBitForBit(String schemes) {
    String[] parts = schemes.split("/");
    UplinkFeedback feedback = UplinkFeedback.valueOf(parts[0]);
    DownlinkScheme scheme = DownlinkScheme.valueOf(parts[1]);
    ResumePoint[] saved = new ResumePoint[1];
    RunListener checkpoint = savingRound25(saved);
    Outcome full = run(Mode.BIDIRECTIONAL, feedback, scheme, parts[2], parts[3], null, null, 0.01, 50, 6, null,
        List.of(checkpoint));
    assertEquals(feedback.keepsGradientEstimate(), saved[0].serverEstimate() != null,
        "the server's g or h is part of the checkpoint exactly when the uplink keeps one");
    Outcome resumed = run(Mode.BIDIRECTIONAL, feedback, scheme, parts[2], parts[3], null, null, 0.01, 50, 6,
        saved[0], List.of());
    for (int t = 25; t < 50; t++) {
      assertEquals(full.recorder.iterations.get(t).optimalityGap(),
          resumed.recorder.iterations.get(t - 25).optimalityGap(), 0.0, "round " + t);
      assertEquals(full.recorder.iterations.get(t).downBytes(), resumed.recorder.iterations.get(t - 25).downBytes());
    }
    assertEquals(0, resumed.recorder.iterations.stream().mapToInt(IterationRecord::lostResiduals).sum());
    assertArrayEquals(full.master, resumed.master);
    assertArrayEquals(full.model, resumed.model);
  }

  /**
   * MCM with α_dwn = 1 is EF21-P, and Artemis with α_up = 1 is EF21, bit for bit: same bytes and non-zeros every
   * round, same workers' model. (The gaps differ by design: MCM reports its central model x, EF21-P the workers' w.)
   */
  @ParameterizedTest(name = "uplink {0}, downlink {1}")
  @CsvSource({"topk, topk", "randomk:scaled, natural", "natural, randomk"})
  void wholeMemoryRatesAreEf21AndEf21pBitForBit(String uplink, String downlink) {
    Outcome ef21 = run(Mode.BIDIRECTIONAL, UplinkFeedback.EF21, DownlinkScheme.EF21_P, uplink, downlink, null, null,
        0.01, 60, 8, null, List.of());
    Outcome mcm = run(Mode.BIDIRECTIONAL, UplinkFeedback.ARTEMIS, DownlinkScheme.MCM, uplink, downlink, 1.0, 1.0,
        0.01, 60, 8, null, List.of());
    for (int t = 0; t < 60; t++) {
      IterationRecord a = ef21.recorder.iterations.get(t);
      IterationRecord b = mcm.recorder.iterations.get(t);
      assertEquals(a.downBytes(), b.downBytes(), "down bytes, round " + t);
      assertEquals(a.upBytes(), b.upBytes(), "up bytes, round " + t);
      assertEquals(a.downNnz(), b.downNnz(), "down nnz, round " + t);
      assertEquals(a.deltaDown(), b.deltaDown(), 0.0, "delta_down, round " + t);
    }
    assertArrayEquals(ef21.master, mcm.master);
    assertTrue(ef21.recorder.iterations.get(59).optimalityGap() != mcm.recorder.iterations.get(59).optimalityGap(),
        "MCM reports the central model, not the workers'");
  }

  /**
   * Artemis' uplink memory and MCM's downlink (Philippenko & Dieuleveut 2021, as in {@code GradientUpdateMethod.py}
   * and {@code LocalUpdate.py} of {@code philipco/mcm-bidirectional-compression}) with the unbiased compressors the
   * paper assumes and the authors' rates α = 1/(2(ω + 1)), written out sequentially: every round's gap (of the
   * central model x), the workers' model and x equal the Spark run's bit for bit.
   */
  @ParameterizedTest(name = "uplink {0}, downlink {1}, lr {2}")
  @CsvSource({"natural, natural, 0.01, 80", "randomk:scaled, natural, 0.005, 60", "natural, randomk:scaled, 0.01, 60",
      "topk, topk, 0.01, 40"})
  void artemisWithMcmEqualsASequentialReference(String uplink, String downlink, float lr, int rounds) {
    long seed = 5;
    boolean biased = uplink.equals("topk");
    Double rate = biased ? 0.5 : null;   // TopK has no ω: the rates are given
    Outcome run = run(Mode.BIDIRECTIONAL, UplinkFeedback.ARTEMIS, DownlinkScheme.MCM, uplink, downlink, rate, rate,
        lr, rounds, seed, null, List.of());
    float[] x0 = initial(seed);
    int d = x0.length;
    int k = 1;   // density 0.01 of d = 100
    float alphaUp = biased ? 0.5f : (float) (1.0 / (2.0 * (RunPlans.omega(CompressorSpec.parse(uplink), d, k) + 1.0)));
    float alphaDown = biased ? 0.5f
        : (float) (1.0 / (2.0 * (RunPlans.omega(CompressorSpec.parse(downlink), d, k) + 1.0)));
    SchemeReference.Result result = SchemeReference.run(x0, CounterexampleProblem.CENTERS.length, rounds,
        (worker, round, w) -> gradient(w, CounterexampleProblem.CENTERS[worker]), uplink, downlink, k, k, alphaUp,
        alphaDown, lr, seed, (t, w, x) -> {
          double gap = CounterexampleProblem.objective(x) - CounterexampleProblem.optimum();
          assertEquals(gap, run.recorder.iterations.get(t).optimalityGap(), 0.0, "round " + t);
        });
    assertArrayEquals(result.workersModel(), run.master, "the workers' model");
    assertArrayEquals(result.centralModel(), run.model, "the central model");
  }

  /**
   * EF21-P and MCM in the papers' literal form (exact x, the memory H and the workers' ŵ = H + Ω kept apart:
   * x ← x − step, Ω = C(x − H), ŵ = H + Ω, H ← H + α·Ω; EF21-P is α = 1, where ŵ = H) agree with the job's (which
   * keeps r = x − ŵ and, for MCM, the last message) up to float rounding: gaps within 1e-4 relative, of the workers'
   * model for EF21-P and of the central model for MCM, as the job reports them. EF14 uplink: the literal form
   * concerns the downlink.
   */
  @ParameterizedTest(name = "{0}, alpha {1}")
  @CsvSource({"EF21_P, 1, 150", "MCM, 0.5, 100"})
  void modelCompressionMatchesThePapersLiteralForm(DownlinkScheme scheme, float alpha, int rounds) {
    float lr = 0.01f;
    long seed = 4;
    Outcome run = run(Mode.BIDIRECTIONAL, UplinkFeedback.EF14, scheme, "topk", "topk", null,
        scheme == DownlinkScheme.MCM ? (double) alpha : null, lr, rounds, seed, null, List.of());
    float[] x = initial(seed);
    float[] memory = x.clone();   // H_0 = x_0
    float[] w = x.clone();        // ŵ_0 = x_0
    int d = x.length;
    int p = CounterexampleProblem.CENTERS.length;
    ErrorFeedback[] workers = new ErrorFeedback[p];
    for (int i = 0; i < p; i++) {
      workers[i] = ErrorFeedback.enabled(d);
    }
    Compressor topk = CompressorSpec.parse("topk").create(0);
    for (int t = 0; t < rounds; t++) {
      double gap = CounterexampleProblem.objective(scheme == DownlinkScheme.MCM ? x : w)
          - CounterexampleProblem.optimum();
      double actual = run.recorder.iterations.get(t).optimalityGap();
      assertEquals(gap, actual, 1e-4 * Math.abs(gap) + 1e-6, "round " + t);
      float[] a = new float[d];
      for (int i = 0; i < p; i++) {
        workers[i].step(gradient(w, CounterexampleProblem.CENTERS[i]), lr, topk, 1).sent().addTo(a, 1f);
      }
      float[] diff = new float[d];
      for (int j = 0; j < d; j++) {
        x[j] = x[j] - a[j] / p;
        diff[j] = x[j] - memory[j];
      }
      SparseVector omega = SparseVector.gather(diff, topk.select(diff, 1));
      w = memory.clone();
      for (int n = 0; n < omega.nnz(); n++) {
        w[omega.index(n)] = memory[omega.index(n)] + omega.value(n);
        memory[omega.index(n)] = memory[omega.index(n)] + alpha * omega.value(n);
      }
    }
  }

  /**
   * Known answer for MCM (Philippenko & Dieuleveut 2021, Theorem 1 with σ² = 0): with full gradients, unbiased
   * compressors both ways (natural compression, ω = 1/8, the authors' α = 1/(2(ω + 1))) and a constant step, the
   * uplink memories h_i → ∇f_i(x*) remove the compression noise at the optimum and the central model converges
   * linearly to x* (measured: 1.1e4 → 1.4e-9, the float32 floor). Without the uplink memory
   * (--uplink-feedback none) the heterogeneous workers' compressed gradients keep a noise of order ω‖∇f_i(x*)‖² at
   * the optimum and the gap stalls (measured about 0.25).
   */
  @Test
  void mcmWithArtemisConvergesWhereMemorylessCompressionStalls() {
    int rounds = 400;
    Outcome mcm = run(Mode.BIDIRECTIONAL, UplinkFeedback.ARTEMIS, DownlinkScheme.MCM, "natural", "natural", null,
        null, 0.05, rounds, 1, null, List.of());
    Outcome memoryless = run(Mode.BIDIRECTIONAL, UplinkFeedback.NONE, DownlinkScheme.MCM, "natural", "natural", null,
        null, 0.05, rounds, 1, null, List.of());
    double start = mcm.recorder.iterations.get(0).optimalityGap();
    double half = mcm.recorder.iterations.get(rounds / 2 - 1).optimalityGap();
    double end = mcm.recorder.iterations.get(rounds - 1).optimalityGap();
    double stalled = memoryless.recorder.meanGap(rounds / 2, rounds);
    System.out.printf("Artemis + MCM gap %.3e -> %.3e -> %.3e; without uplink memory %.3f%n", start, half, end,
        stalled);
    assertTrue(end < 1e-10 * start, "MCM's final gap " + end);
    assertTrue(end < 1e-2 * half, "still contracting linearly: " + half + " -> " + end);
    assertTrue(stalled > 0.05, "without the uplink memory the gap stalls: " + stalled);
  }

  /**
   * A value of the formats as its definition gives it, independently of the codec: FP16 and BF16 round to nearest
   * even at their ulp (2^(e - 10), at least 2^-24; 2^(e - 7), at least 2^-133), computed in double.
   */
  private static float roundedReference(float v, ValueFormat format, float int8Scale) {
    if (v == 0 || format == ValueFormat.FP32) {
      return v;
    }
    if (format == ValueFormat.INT8) {
      return (float) (Math.max(-127, Math.min(127, Math.rint(v / (double) int8Scale))) * int8Scale);
    }
    int mantissaBits = format == ValueFormat.FP16 ? 10 : 7;
    int minExponent = format == ValueFormat.FP16 ? -14 : -126;
    double ulp = Math.scalb(1.0, Math.max(Math.getExponent(v), minExponent) - mantissaBits);
    return (float) (Math.rint(v / ulp) * ulp);
  }

  /** The INT8 scale of a one-value message: |v| / 127 rounded up to 17 significant bits. */
  private static float int8ScaleReference(float v) {
    double exact = Math.abs((double) v) / 127;
    double unit = Math.scalb(1.0, Math.getExponent((float) exact) - 16);
    return (float) (Math.ceil(exact / unit) * unit);
  }

  /**
   * Classic error feedback on both sides with the values rounded to a narrower format, through the real
   * driver/executor path, against a sequential reference written here: TopK (k = 1) selects on the exact c, the
   * message carries the rounded value, the residual keeps c minus it. Every round's gap and the final model (every
   * replica's, checked each round) are equal bit for bit, and the bytes are the format's: a 6-byte header, one
   * delta byte and 4 (FP32), 2 (FP16, BF16) or 4 + 1 (INT8: the scale and a code) value bytes a message.
   */
  @ParameterizedTest(name = "up {0}, down {1}")
  @CsvSource({"FP16, FP16", "BF16, INT8", "INT8, BF16", "FP16, FP32", "FP32, INT8"})
  void roundedValuesFollowASequentialReference(ValueFormat up, ValueFormat down) {
    long seed = 4;
    int rounds = 80;
    float lr = 0.01f;
    Outcome run = run(Mode.BIDIRECTIONAL, UplinkFeedback.EF14, DownlinkScheme.EF, "topk", "topk", null, null, up,
        down, lr, rounds, seed, null, List.of());
    float[] w = initial(seed);
    int d = w.length;
    int p = CounterexampleProblem.CENTERS.length;
    float[][] residuals = new float[p][d];
    float[] serverResidual = new float[d];
    Compressor topk = CompressorSpec.parse("topk").create(0);
    java.util.Map<ValueFormat, Integer> valueBytes = java.util.Map.of(ValueFormat.FP32, 4, ValueFormat.FP16, 2,
        ValueFormat.BF16, 2, ValueFormat.INT8, 5);
    for (int t = 0; t < rounds; t++) {
      IterationRecord record = run.recorder.iterations.get(t);
      double gap = CounterexampleProblem.objective(w) - CounterexampleProblem.optimum();
      assertEquals(gap, record.optimalityGap(), 0.0, "round " + t);
      assertEquals((long) p * (7 + valueBytes.get(up)), record.upBytes(), "up bytes, round " + t);
      assertEquals(7 + valueBytes.get(down), record.downBytes(), "down bytes, round " + t);
      float[] sum = new float[d];
      for (int i = 0; i < p; i++) {
        float[] grad = gradient(w, CounterexampleProblem.CENTERS[i]);
        float[] c = new float[d];
        for (int j = 0; j < d; j++) {
          c[j] = residuals[i][j] + lr * grad[j];
        }
        int j = topk.select(c, 1).indices()[0];
        float sent = roundedReference(c[j], up, int8ScaleReference(c[j]));
        System.arraycopy(c, 0, residuals[i], 0, d);
        residuals[i][j] = c[j] - sent;
        assertEquals(c[j], sent + residuals[i][j], 0.0, "sent + residual == c");
        sum[j] += sent;
      }
      float[] c = new float[d];
      for (int j = 0; j < d; j++) {
        c[j] = serverResidual[j] + (sum[j] != 0 ? sum[j] / p : 0f);
      }
      int j = topk.select(c, 1).indices()[0];
      float sent = roundedReference(c[j], down, int8ScaleReference(c[j]));
      System.arraycopy(c, 0, serverResidual, 0, d);
      serverResidual[j] = c[j] - sent;
      w[j] = w[j] - sent;
    }
    assertArrayEquals(w, run.master, "final model");
  }

  /** A listener that keeps round 25's resume point in {@code saved[0]}. */
  private static RunListener savingRound25(ResumePoint[] saved) {
    return new RunListener() {
      @Override
      public void afterRound(DriverState state) {
        if (state.iteration() == 25) {
          saved[0] = state.resumePoint();
        }
      }
    };
  }

  /** A run with rounded values both ways resumed from round 25's state continues bit for bit. */
  @Test
  void roundedValuesResumeBitForBit() {
    ResumePoint[] saved = new ResumePoint[1];
    RunListener checkpoint = savingRound25(saved);
    Outcome full = run(Mode.BIDIRECTIONAL, UplinkFeedback.EF14, DownlinkScheme.EF, "topk", "topk", null, null,
        ValueFormat.INT8, ValueFormat.FP16, 0.01, 50, 6, null, List.of(checkpoint));
    Outcome resumed = run(Mode.BIDIRECTIONAL, UplinkFeedback.EF14, DownlinkScheme.EF, "topk", "topk", null, null,
        ValueFormat.INT8, ValueFormat.FP16, 0.01, 50, 6, saved[0], List.of());
    for (int t = 25; t < 50; t++) {
      assertEquals(full.recorder.iterations.get(t).optimalityGap(),
          resumed.recorder.iterations.get(t - 25).optimalityGap(), 0.0, "round " + t);
    }
    assertArrayEquals(full.master, resumed.master);
  }
}
