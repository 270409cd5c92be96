package org.bitopk.job.problem.quadratic;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;
import org.bitopk.cli.Main;
import org.bitopk.job.LocalSpark;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The counterexample in settings other than the paper's (dimension, 2 to 6 centres including negative and
 * repeated ones, K = 1…5 up and down, learning rate, a starting point without noise so that every coordinate
 * ties), run through the real job (the {@code train} command on local Spark) in all three modes, against a
 * sequential float32 implementation of the algorithm written here from its definition; x₀ given as a text or
 * .npy file; config.json reruns; bad settings and files.
 */
class CounterexampleSettingsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ROUNDS = 20;

  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  @TempDir
  Path tmp;

  /** One setting: the dataset text's parts, k up and down, lr, seed. */
  record Setting(int d, float[] centres, double start, double noise, int kUp, int kDown, double lr, long seed) {
    String dataset() {
      List<String> c = new ArrayList<>();
      for (float a : centres) {
        c.add(Float.toString(a));
      }
      return "counterexample:d=" + d + ",centres=" + String.join(";", c) + ",start=" + start + ",noise=" + noise;
    }

    @Override
    public String toString() {
      return dataset() + " k " + kUp + "/" + kDown + " lr " + lr;
    }
  }

  static Stream<Arguments> settingsAndModes() {
    List<Setting> settings = List.of(
        new Setting(7, new float[] {1, 5, 10}, 20, 1, 1, 1, 0.01, 3),
        new Setting(12, new float[] {-3, -3, 4, 0.5f}, 20, 1, 2, 3, 0.05, 4),
        new Setting(5, new float[] {2, -1}, -4, 2.5, 5, 4, 0.1, 5),
        new Setting(20, new float[] {1, 1, 1, 2, 3, -7}, 20, 1, 3, 1, 0.02, 6),
        new Setting(9, new float[] {0, 10, -10, 2.5f, 7}, 6, 0, 4, 5, 0.03, 7));  // x0 = 6·1: every coordinate ties
    List<Arguments> out = new ArrayList<>();
    for (Setting s : settings) {
      for (String mode : List.of("unidirectional", "bidirectional", "dense")) {
        out.add(Arguments.of(s, mode));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{1}: {0}")
  @MethodSource("settingsAndModes")
  void theJobComputesWhatASequentialFloat32ReferenceComputesBitForBit(Setting s, String mode) throws IOException {
    Path out = tmp.resolve("run");
    train(args(s, mode, out)).succeeds();
    Reference ref = reference(s, mode, generated(s), ROUNDS);
    assertRun(out, ref, s);

    JsonNode config = JSON.readTree(out.resolve("config.json").toFile());
    assertEquals(s.dataset(), config.get("dataset").asText());
    assertEquals(s.centres.length, config.get("workers").asInt());
    assertEquals(mode.equals("dense") ? null : s.kUp, config.has("k-up") ? config.get("k-up").asInt() : null);
    assertEquals(mode.equals("bidirectional") ? s.kDown : null,
        config.has("k-down") ? config.get("k-down").asInt() : null);
    assertEquals(mode.equals("dense"), config.has("density-up"), "the density is not recorded when k is: " + config);
    assertEquals(!mode.equals("bidirectional"), config.has("density-down"), config.toString());
    JsonNode resolved = config.get("resolved");
    assertEquals(s.d, resolved.get("dimension").asInt());
    assertEquals(mean(s.centres), resolved.get("x_star").asDouble(), 1e-12);
    assertEquals(fStar(s), resolved.get("f_star").asDouble(), 1e-9 * Math.max(1, fStar(s)));

    if (!mode.equals("bidirectional")) {
      return;   // the rerun from config.json is checked where it records most: k up and down
    }
    // config.json alone reruns it bit for bit
    Path again = tmp.resolve("again");
    train(List.of("--config", out.resolve("config.json").toString(), "--output", again.toString(), "--quiet"))
        .succeeds();
    assertRun(again, ref, s);
  }

  /** x₀ written to a text file, a float32 .npy and a float64 .npy gives the run of the same generated values. */
  @Test
  void aStartingPointFromTextOrNpyRunsExactlyAsTheSameGeneratedOne() throws IOException {
    Setting s = new Setting(9, new float[] {-2, 3, 3}, 20, 1, 2, 2, 0.04, 11);
    float[] x0 = generated(s);
    Reference ref = reference(s, "bidirectional", x0, ROUNDS);
    Path generatedRun = tmp.resolve("generated");
    train(args(s, "bidirectional", generatedRun)).succeeds();
    assertRun(generatedRun, ref, s);

    StringBuilder text = new StringBuilder("# x0, one value per line, some on one line\n");
    for (int j = 0; j < x0.length; j++) {
      text.append(j % 3 == 2 ? String.format(Locale.ROOT, "%.9e  %s\n", x0[j], "")
          : Float.toString(x0[j]) + (j % 2 == 0 ? "\n" : " "));
    }
    Path txt = Files.writeString(tmp.resolve("x0.txt"), text.toString());
    Path f32 = Files.write(tmp.resolve("x0-f32.npy"), npy(x0, false));
    Path f64 = Files.write(tmp.resolve("x0-f64.npy"), npy(x0, true));
    String crc = null;
    for (Path file : List.of(txt, f32, f64)) {
      Path out = tmp.resolve("from-" + file.getFileName());
      List<String> a = new ArrayList<>(args(s, "bidirectional", out));
      a.set(a.indexOf("--seed") + 1, "999");   // the seed no longer decides x0
      a.addAll(List.of("--x0", file.toString()));
      train(a).succeeds();
      assertRun(out, ref, s);
      JsonNode config = JSON.readTree(out.resolve("config.json").toFile());
      assertEquals(file.toString(), config.get("x0").asText());
      assertTrue(config.get("resolved").get("x0").asText().startsWith("file "), config.toString());
      String c = config.get("resolved").get("x0_crc32c").asText();
      assertEquals(crc == null ? c : crc, c);
      crc = c;
      // and its config.json reruns it from the file
      Path again = tmp.resolve("again-" + file.getFileName());
      train(List.of("--config", out.resolve("config.json").toString(), "--output", again.toString(), "--quiet"))
          .succeeds();
      assertRun(again, ref, s);
    }
    assertEquals(crc, JSON.readTree(generatedRun.resolve("config.json").toFile()).get("resolved").get("x0_crc32c")
        .asText(), "the generated start has the same bytes");
  }

  /** Zou's default is unchanged: plain counterexample = d 100, centres 1;5;10, x0 = 20 + N(0,1) from the seed. */
  @Test
  void thePlainNameIsThePapersSetting() {
    CounterexampleSetting paper = CounterexampleSetting.parse("counterexample");
    assertEquals(CounterexampleSetting.parse("counterexample:d=100,centres=1;5;10,start=20,noise=1"), paper);
    assertEquals("counterexample:d=100,centres=1;5;10,start=20,noise=1", paper.toString());
    assertEquals(6100.0 / 9, paper.optimum(), 1e-9);
    assertEquals(16.0 / 3, paper.optimumCoordinate(), 1e-15);
    CounterexampleSetting odd = CounterexampleSetting.parse("counterexample:centres=-1.5;-1.5;0.1,d=3");
    assertEquals(odd, CounterexampleSetting.parse(odd.toString()));
    Random random = new Random(42);
    float[] x = paper.initialPoint(42);
    for (float v : x) {
      assertEquals((float) (20.0 + random.nextGaussian()), v);
    }
  }

  static Stream<Arguments> badInput() {
    return Stream.of(
        Arguments.of(List.of("--dataset", "counterexample:centres=1;5;10", "--workers", "4"),
            List.of("--workers 4", "3 centres")),
        Arguments.of(List.of("--dataset", "counterexample:d=5,centres=1;;2"), List.of("--dataset", "empty entry")),
        Arguments.of(List.of("--dataset", "counterexample:dim=5"), List.of("--dataset", "unknown key 'dim'")),
        Arguments.of(List.of("--dataset", "counterexample:d=0"), List.of("--dataset", "d=0")),
        Arguments.of(List.of("--dataset", "counterexample:noise=-1"), List.of("--dataset", "noise=-1")),
        Arguments.of(List.of("--dataset", "counterexample:centres=1;x"), List.of("--dataset", "'1;x'")),
        Arguments.of(List.of("--dataset", "counterexample:d=4", "--k-up", "5"), List.of("--k-up 5", "d = 4")),
        Arguments.of(List.of("--dataset", "counterexample:d=4", "--k-down", "9"), List.of("--k-down 9", "d = 4")),
        Arguments.of(List.of("--dataset", "counterexample", "--k-up", "0"), List.of("--k-up", ">= 1")),
        Arguments.of(List.of("--dataset", "counterexample", "--k-up", "2", "--density-up", "0.02"),
            List.of("--density-up", "--k-up 2")),
        Arguments.of(List.of("--dataset", "counterexample", "--mode", "dense", "--k-up", "2"),
            List.of("--k-up", "--mode dense")),
        Arguments.of(List.of("--dataset", "counterexample", "--mode", "unidirectional", "--k-down", "2"),
            List.of("--k-down", "--mode unidirectional")),
        Arguments.of(List.of("--dataset", "synthetic:n=40,test=8", "--x0", "x.txt"), List.of("--x0", "counterexample")));
  }

  @ParameterizedTest
  @MethodSource("badInput")
  void badSettingsGiveOneLineAndExitTwo(List<String> flags, List<String> named) {
    List<String> a = new ArrayList<>(flags);
    a.addAll(List.of("--output", tmp.resolve("never").toString(), "--quiet"));
    train(a).failsWithOneLine(2, named.toArray(String[]::new));
    assertFalse(Files.exists(tmp.resolve("never")), "nothing written");
  }

  /** Wrong length, not a number, a directory, a missing file, an unsupported .npy: one line naming the file. */
  @Test
  void badStartingPointFilesGiveOneLineNamingTheFileAndExitTwo() throws IOException {
    Path shortText = Files.writeString(tmp.resolve("short.txt"), "1 2 3\n4\n");
    Path word = Files.writeString(tmp.resolve("word.txt"), "1 2\nthree 4 5\n");
    Path nan = Files.writeString(tmp.resolve("nan.txt"), "1 2 NaN 4 5\n");
    Path longNpy = Files.write(tmp.resolve("long.npy"), npy(new float[6], false));
    byte[] ints = npy(new float[5], false);
    byte[] header = new String(ints, StandardCharsets.ISO_8859_1).replace("'<f4'", "'<i4'")
        .getBytes(StandardCharsets.ISO_8859_1);
    Path intNpy = Files.write(tmp.resolve("int.npy"), header);
    Path dir = Files.createDirectories(tmp.resolve("adir"));
    Object[][] cases = {
        {shortText, new String[] {shortText.toString(), "holds 4 values", "expected d = 5"}},
        {word, new String[] {word.toString(), "line 2", "'three'"}},
        {nan, new String[] {nan.toString(), "NaN"}},
        {longNpy, new String[] {longNpy.toString(), "holds 6 values", "expected d = 5"}},
        {intNpy, new String[] {intNpy.toString(), "'<i4'"}},
        {dir, new String[] {dir.toString(), "directory"}},
        {tmp.resolve("missing.txt"), new String[] {"missing.txt", "no such file"}}};
    for (Object[] c : cases) {
      List<String> a = List.of("--dataset", "counterexample:d=5", "--x0", c[0].toString(), "--output",
          tmp.resolve("never").toString(), "--quiet");
      List<String> named = new ArrayList<>(List.of("--x0"));
      named.addAll(Arrays.asList((String[]) c[1]));
      train(a).failsWithOneLine(2, named.toArray(String[]::new));
      assertFalse(Files.exists(tmp.resolve("never")), "nothing written for " + c[0]);
    }
  }

  // ---- the reference -------------------------------------------------------------------------------------

  /** x₀ as documented: java.util.Random(seed), x[j] = (float) (start + noise · nextGaussian()) in index order. */
  static float[] generated(Setting s) {
    Random random = new Random(s.seed);
    float[] x = new float[s.d];
    for (int j = 0; j < s.d; j++) {
      x[j] = (float) (s.start + s.noise * random.nextGaussian());
    }
    return x;
  }

  record Reference(double[] gaps, float[] last) {}

  /**
   * The algorithm in float32, sequentially. Worker i: c_i = e_i + lr·(x − a_i·1), sent = TopK(c_i) (largest |c|,
   * ties to the lower index), e_i = c_i − sent (dense: c_i = lr·g_i sent whole, no residual). Server: the mean of
   * the sent vectors, summed in worker order from 0 and divided by P in float; bidirectional: s = e_s + mean,
   * p = TopK(s), e_s = s − p, x ← x − p; otherwise x ← x − mean.
   */
  static Reference reference(Setting s, String mode, float[] x0, int rounds) {
    int d = s.d;
    int workers = s.centres.length;
    float lr = (float) s.lr;
    float[] x = x0.clone();
    float[][] e = new float[workers][d];
    float[] es = new float[d];
    double[] gaps = new double[rounds];
    for (int t = 0; t < rounds; t++) {
      gaps[t] = objective(x, s.centres) - fStar(s);
      float[] sum = new float[d];
      for (int i = 0; i < workers; i++) {
        float[] c = new float[d];
        for (int j = 0; j < d; j++) {
          float g = x[j] - s.centres[i];
          c[j] = mode.equals("dense") ? lr * g : e[i][j] + lr * g;
        }
        boolean[] sent = mode.equals("dense") ? all(d) : topK(c, s.kUp);
        for (int j = 0; j < d; j++) {
          if (sent[j]) {
            sum[j] = sum[j] + c[j];
            c[j] = 0f;
          }
        }
        if (!mode.equals("dense")) {
          e[i] = c;
        }
      }
      float p = workers;
      for (int j = 0; j < d; j++) {
        sum[j] = sum[j] / p;
      }
      if (mode.equals("bidirectional")) {
        float[] server = new float[d];
        for (int j = 0; j < d; j++) {
          server[j] = es[j] + sum[j];
        }
        boolean[] down = topK(server, s.kDown);
        for (int j = 0; j < d; j++) {
          if (down[j]) {
            x[j] = x[j] - server[j];
            server[j] = 0f;
          }
        }
        es = server;
      } else {
        for (int j = 0; j < d; j++) {
          x[j] = x[j] - sum[j];
        }
      }
    }
    return new Reference(gaps, x);
  }

  private static boolean[] all(int d) {
    boolean[] b = new boolean[d];
    Arrays.fill(b, true);
    return b;
  }

  /** The k largest |v|, ties to the lower index: a stable sort of the indices by decreasing |v|. */
  static boolean[] topK(float[] v, int k) {
    Integer[] order = new Integer[v.length];
    for (int j = 0; j < v.length; j++) {
      order[j] = j;
    }
    Arrays.sort(order, (a, b) -> Float.compare(Math.abs(v[b]), Math.abs(v[a])));
    boolean[] chosen = new boolean[v.length];
    for (int r = 0; r < k; r++) {
      chosen[order[r]] = true;
    }
    return chosen;
  }

  /** F(x) = (1/P) Σ_i Σ_j ½ (x_j − a_i)², in double, centres outer, coordinates inner. */
  static double objective(float[] x, float[] centres) {
    double total = 0;
    for (float a : centres) {
      for (float v : x) {
        double diff = (double) v - a;
        total += 0.5 * diff * diff;
      }
    }
    return total / centres.length;
  }

  static double mean(float[] centres) {
    double m = 0;
    for (float a : centres) {
      m += a;
    }
    return m / centres.length;
  }

  /** F* = F(ā·1), from the definition (not the closed form the job uses). */
  static double fStar(Setting s) {
    double m = mean(s.centres);
    double total = 0;
    for (float a : s.centres) {
      total += 0.5 * s.d * (m - a) * (m - a);
    }
    return total / s.centres.length;
  }

  // ---- the job ---------------------------------------------------------------------------------------------

  static List<String> args(Setting s, String mode, Path out) {
    List<String> a = new ArrayList<>(List.of("--dataset", s.dataset(), "--mode", mode, "--lr", Double.toString(s.lr),
        "--epochs", Integer.toString(ROUNDS), "--seed", Long.toString(s.seed), "--output", out.toString(), "--quiet",
        "--consistency-check-every", "5"));
    if (!mode.equals("dense")) {
      a.addAll(List.of("--k-up", Integer.toString(s.kUp)));
    }
    if (mode.equals("bidirectional")) {
      a.addAll(List.of("--k-down", Integer.toString(s.kDown)));
    }
    return a;
  }

  /** Every round's F − F* within 1e-12 relative (F* is the job's closed form) and the final x bit for bit. */
  static void assertRun(Path out, Reference ref, Setting s) throws IOException {
    List<String> lines = Files.readAllLines(out.resolve("metrics/iterations.jsonl"));
    assertEquals(ref.gaps.length, lines.size());
    for (int t = 0; t < lines.size(); t++) {
      double gap = JSON.readTree(lines.get(t)).get("optimality_gap").asDouble();
      // the same x_t gives the same F(x_t) bit for bit; F* differs from the reference's by rounding only
      assertEquals(ref.gaps[t], gap, 1e-12 * Math.max(1, fStar(s)), "round " + t);
    }
    JsonNode model = JSON.readTree(out.resolve("model.json").toFile());
    float[] x = new float[s.d];
    for (int j = 0; j < s.d; j++) {
      x[j] = (float) model.get("parameters").get(j).doubleValue();
    }
    assertArrayEquals(ref.last, x, "x after " + ref.gaps.length + " rounds");
  }

  static byte[] npy(float[] x, boolean float64) {
    String dict = "{'descr': '" + (float64 ? "<f8" : "<f4") + "', 'fortran_order': False, 'shape': (" + x.length
        + ",), }";
    int unpadded = 10 + dict.length() + 1;
    String header = dict + " ".repeat((64 - unpadded % 64) % 64) + "\n";
    ByteBuffer b = ByteBuffer.allocate(10 + header.length() + x.length * (float64 ? 8 : 4))
        .order(ByteOrder.LITTLE_ENDIAN);
    b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0});
    b.putShort((short) header.length());
    b.put(header.getBytes(StandardCharsets.ISO_8859_1));
    for (float v : x) {
      if (float64) {
        b.putDouble(v);
      } else {
        b.putFloat(v);
      }
    }
    return b.array();
  }

  record Outcome(int code, String out, String err) {
    Outcome succeeds() {
      assertEquals(0, code, () -> "stderr:\n" + err);
      return this;
    }

    void failsWithOneLine(int expected, String... named) {
      assertEquals(expected, code, () -> "exit code; stderr:\n" + err);
      List<String> lines = err.lines().toList();
      assertEquals(1, lines.size(), () -> "one line: " + err);
      assertTrue(err.startsWith("bitopk: "), err);
      for (String n : named) {
        assertTrue(err.contains(n), () -> "the line must name " + n + ": " + err);
      }
      assertFalse(err.contains("\tat ") || err.contains("Exception"), err);
    }
  }

  static Outcome train(List<String> args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(args.toArray(String[]::new), SPARK.context(), new PrintWriter(out, true),
        new PrintWriter(err, true));
    return new Outcome(code, out.toString(), err.toString());
  }
}
