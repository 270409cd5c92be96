package org.bitopk.lab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.bitopk.cli.Main;
import org.bitopk.compression.KRounding;
import org.bitopk.job.config.FlagValues;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TrainFlags;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Grid files: expansion, naming, the shipped grids' settings against the thesis, and one line per bad file. */
class GridTest {
  static final Path SHIPPED = Path.of("experiments");

  @TempDir
  Path tmp;

  static Grid shipped(String name) {
    return Grid.read(SHIPPED.resolve(name + ".json").toString(), new Configuration());
  }

  static TrainingConfig config(GridPoint p) {
    return FlagValues.configOf(p.settings(), new Configuration());
  }

  static GridPoint find(Grid grid, Mode mode, int workers) {
    return grid.points().stream()
        .filter(p -> config(p).mode() == mode && config(p).workers() == workers).findFirst().orElseThrow();
  }

  /** The thesis' table: learning rate per (model, P) for uni / bi / dense. */
  @ParameterizedTest
  @CsvSource({
      "thesis-fmnist-mlp, mlp, 100, 20, 0.08, 0.08, 0.06",
      "thesis-fmnist-mlp, mlp, 100, 50, 0.13, 0.12, 0.07",
      "thesis-fmnist-mlp, mlp, 100, 100, 0.22, 0.22, 0.08",
      "thesis-fmnist-mlp-quick, mlp, 10, 50, 0.13, 0.12, 0.07",
      "thesis-fmnist-cnn, cnn-bn, 100, 20, 0.09, 0.08, 0.06",
      "thesis-fmnist-cnn, cnn-bn, 100, 50, 0.12, 0.11, 0.07",
      "thesis-fmnist-cnn-quick, cnn-bn, 10, 100, 0.14, 0.2, 0.08"})
  void thesisGridsHoldThePublishedSettings(String grid, String model, int epochs, int workers, double uni, double bi,
      double dense) {
    Grid g = shipped(grid);
    assertEquals(9, g.points().size());
    assertNotNull(g.expectedRuntime());
    Set<String> names = new HashSet<>();
    for (GridPoint p : g.points()) {
      TrainingConfig c = config(p);
      names.add(p.name());
      assertEquals("fashion-mnist", c.dataset());
      assertEquals(ModelArchitecture.parse(model), c.model());
      assertEquals(epochs, c.epochs());
      assertEquals(10, c.batchSize());
      // dense SGD has no k to round: the grid's k-rounding applies to the compressed modes only
      assertEquals(c.mode() == Mode.DENSE ? KRounding.FLOOR : KRounding.REFERENCE, c.kRounding());
      assertEquals(0.0, c.momentum());
      assertEquals(1.0, c.lrDecay());
      assertTrue(!c.nonIid());
      if (c.mode() != Mode.DENSE) {
        assertEquals(0.001, c.densityUp());
      }
      if (c.mode() == Mode.BIDIRECTIONAL) {
        assertEquals(0.001, c.densityDown());
      }
    }
    assertEquals(9, names.size());
    assertEquals(uni, config(find(g, Mode.UNIDIRECTIONAL, workers)).learningRate());
    assertEquals(bi, config(find(g, Mode.BIDIRECTIONAL, workers)).learningRate());
    assertEquals(dense, config(find(g, Mode.DENSE, workers)).learningRate());
    assertEquals(List.of("workers"), g.compareKeys());
    assertEquals(List.of("workers"), g.rowKeys());
  }

  @Test
  void downlinkRatioGridSpansTwoToAHundredWorkersWithThePublishedRatios() {
    Grid g = shipped("downlink-ratio");
    List<Integer> workers = new ArrayList<>();
    for (GridPoint p : g.points()) {
      TrainingConfig c = config(p);
      assertEquals(Mode.BIDIRECTIONAL, c.mode());
      assertEquals(ModelArchitecture.MLP, c.model());
      assertTrue(c.epochs() >= 1);
      workers.add(c.workers());
    }
    assertEquals(List.of(2, 5, 10, 20, 50, 100), workers);
    assertEquals(Map.of(20, 0.051, 50, 0.022, 100, 0.012), g.referenceDownlinkRatio());
    assertEquals(0.12, config(find(g, Mode.BIDIRECTIONAL, 50)).learningRate());
  }

  @Test
  void compressorsGridPutsEveryCompressorOnTheUplinkOfABidirectionalRunOfTwentyWorkers() {
    Grid g = shipped("compressors");
    Set<String> compressors = new HashSet<>();
    for (GridPoint p : g.points()) {
      TrainingConfig c = config(p);
      assertEquals(Mode.BIDIRECTIONAL, c.mode());
      assertEquals(20, c.workers());
      assertEquals("topk", c.downlink().toString());
      compressors.add(c.uplink().toString());
    }
    assertEquals(14, g.points().size());
    assertEquals(Set.of("topk", "gaussiank", "sidco-e:stages=1", "sidco-e:stages=3", "sidco-e",
        "sidco-gp:stages=1", "sidco-gp:stages=3", "sidco-gp", "sidco-gamma-gp:stages=1", "sidco-gamma-gp:stages=3",
        "sidco-gamma-gp", "dgc", "randomk", "threshold:tau=0.001"), compressors);
  }

  /**
   * The counterexample grid: the paper's setting (d = 100, centres 1, 5, 10, K = 1 up and down, lr 0.01, 1000
   * rounds) in the three modes, and the setting where bidirectional does not win (centres -5, -5, 10) uni and bi.
   */
  @Test
  void counterexampleGridHoldsThePapersSettingAndTheOneWhereBidirectionalLoses() {
    Grid g = shipped("counterexample");
    assertNotNull(g.expectedRuntime());
    List<String> seen = new ArrayList<>();
    for (GridPoint p : g.points()) {
      TrainingConfig c = config(p);
      assertTrue(c.isCounterexample(), p.name());
      assertEquals(100, c.counterexample().orElseThrow().dimension());
      assertEquals(0.01, c.learningRate());
      assertEquals(1000, c.epochs());
      assertEquals(3, c.workers());
      assertEquals(c.mode() == Mode.DENSE ? OptionalInt.empty() : OptionalInt.of(1), c.kUp(), p.name());
      assertEquals(c.mode() == Mode.BIDIRECTIONAL ? OptionalInt.of(1) : OptionalInt.empty(), c.kDown(), p.name());
      seen.add(java.util.Arrays.toString(c.counterexample().orElseThrow().centres()) + " " + c.mode().cliName());
    }
    assertEquals(List.of("[1.0, 5.0, 10.0] unidirectional", "[1.0, 5.0, 10.0] bidirectional",
        "[1.0, 5.0, 10.0] dense", "[-5.0, -5.0, 10.0] unidirectional", "[-5.0, -5.0, 10.0] bidirectional"), seen);
  }

  /** Every shipped grid parses and every point is a valid run (no grid is left out of the checks above). */
  @Test
  void everyShippedGridIsValid() throws Exception {
    List<String> names = new ArrayList<>();
    try (var files = Files.list(SHIPPED)) {
      for (Path f : files.sorted().filter(f -> f.toString().matches(".*\\.(json|ya?ml)")).toList()) {
        Grid g = Grid.read(f.toString(), new Configuration());
        g.points().forEach(GridTest::config);
        names.add(f.getFileName().toString());
      }
    }
    assertTrue(names.contains("counterexample.json"), names.toString());
  }

  @Test
  void axesTimesPointsExpandInOrderWithNamesFromTheVaryingValues() throws Exception {
    Path file = tmp.resolve("g.yaml");
    Files.writeString(file, String.join("\n",
        "base:",
        "  dataset: counterexample",
        "  epochs: 5",
        "axes:",
        "  seed: [1, 2]",
        "points:",
        "  - {mode: bidirectional, lr: 0.01}",
        "  - {mode: dense, lr: 0.02}",
        ""));
    Grid g = Grid.read(file.toString(), new Configuration());
    List<String> names = g.points().stream().map(GridPoint::name).toList();
    assertEquals(List.of("seed-1_bidirectional_lr-0.01", "seed-2_bidirectional_lr-0.01", "seed-1_dense_lr-0.02",
        "seed-2_dense_lr-0.02"), names);
    TrainingConfig last = config(g.points().get(3));
    assertEquals(2L, last.seed());
    assertEquals(Mode.DENSE, last.mode());
    assertEquals(0.02, last.learningRate());
    assertEquals(5, last.epochs());
    assertEquals(List.of("seed", "mode", "lr"), g.varyingKeys());
    assertEquals(List.of("seed"), g.rowKeys(), "lr follows the mode: it is not a row of the table");
    assertEquals(List.of("seed"), g.compareKeys());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{'base': {}, 'axes': {'lr': [0.1]}, 'extra': 1}                   | unknown key 'extra'",
      "{'base': {'learning-rate': 0.1}, 'axes': {'seed': [1, 2]}}        | unknown key 'learning-rate'",
      "{'base': {'output': 'x'}, 'axes': {'seed': [1, 2]}}               | unknown key 'output'",
      "{'axes': {'lr': ['fast', 0.1]}}                                    | '--lr'",
      "{'axes': {'workers': [2.5]}}                                       | '--workers'",
      "{'axes': {'seed': []}}                                             | key 'axes.seed' is an empty axis",
      "{'axes': {'seed': 1}}                                              | key 'axes.seed' must be a list",
      "{'axes': {'seed': [[1]]}}                                          | key 'axes.seed[0]' must be a plain value",
      "{'base': {'lr': {'x': 1}}, 'axes': {'seed': [1]}}                 | key 'base.lr' must be a plain value",
      "{'points': [{'lr': 0.1}, {'lr': 0.1}]}                             | duplicate point name 'run'",
      "{'points': [{'name': 'a'}, {'name': 'a', 'lr': 0.2}]}              | duplicate point name 'a'",
      "{'points': []}                                                     | key 'points' is an empty list",
      "{'axes': {'mode': ['dense']}, 'points': [{'mode': 'dense'}]}       | key 'points[0].mode' is also an axis",
      "{'base': {'mode': 'sideways'}, 'axes': {'seed': [1, 2]}}          | '--mode'",
      "{'base': {}}                                                       | needs key 'axes' or key 'points'",
      "{'axes': {'seed': [1, 2]}, 'compare': ['lr']}                      | key 'compare[0]' names 'lr'",
      "[1, 2]                                                             | expected an object",
      "{'axes': {'seed': [1, 2]]                                          | not a valid grid file"})
  void badGridFilesGiveOneLineNamingTheKeyAndExitTwo(String json, String expected) throws Exception {
    Path file = tmp.resolve("bad.json");
    Files.writeString(file, json.replace('\'', '"'));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(new String[] {"experiment", "--grid", file.toString(), "--out", tmp.resolve("o").toString()},
        null, new PrintWriter(out, true), new PrintWriter(err, true));
    assertEquals(2, code, err.toString());
    String text = err.toString().strip();
    assertEquals(1, text.lines().count(), text);
    assertTrue(text.startsWith("bitopk: --grid: " + file), text);
    assertTrue(text.contains(expected), text);
    assertTrue(!Files.exists(tmp.resolve("o")), "nothing may run for a bad grid");
  }

  @Test
  void summarizeRefusesADirectoryWithoutAGrid() {
    StringWriter err = new StringWriter();
    int code = Main.execute(new String[] {"experiment", "--summarize", tmp.toString()}, null,
        new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
    assertEquals(2, code);
    assertTrue(err.toString().contains("is not an experiment directory (no grid.json)"), err.toString());
  }

  /**
   * The schemes grid: every (uplink feedback, downlink scheme) pair of EF14/EF21 × server EF/EF21-P, and MCM, at
   * three learning rates, the thesis' setting; plus MCM with natural compression both ways.
   */
  @Test
  void schemesGridCoversEverySchemePairAtThreeLearningRates() {
    Grid g = shipped("schemes-fmnist-mlp");
    assertNotNull(g.expectedRuntime());
    assertEquals(16, g.points().size());
    Set<String> pairs = new HashSet<>();
    for (GridPoint p : g.points()) {
      TrainingConfig c = config(p);
      assertEquals(Mode.BIDIRECTIONAL, c.mode());
      assertEquals(20, c.workers());
      assertEquals(10, c.batchSize());
      assertEquals(10, c.epochs());
      assertEquals(0.001, c.densityUp());
      assertEquals(0.001, c.densityDown());
      pairs.add(c.uplinkFeedback().cliName() + "/" + c.downlinkScheme().cliName() + "/" + c.learningRate()
          + (c.uplink().toString().equals("topk") ? "" : "/" + c.uplink()));
    }
    assertEquals(16, pairs.size(), pairs.toString());
    assertTrue(pairs.contains("artemis/mcm/0.08/natural"), pairs.toString());
    assertTrue(pairs.contains("ef21/ef21-p/0.003") && pairs.contains("ef14/ef/0.04")
        && pairs.contains("artemis/mcm/0.01") && pairs.contains("ef21/ef/0.001"), pairs.toString());
  }

  /**
   * The value formats grid is the quick grid's bidirectional P = 20 point (every setting, the learning rate
   * included) once per value format, the same format both ways.
   */
  @Test
  void wireFormatsGridIsTheQuickGridsBidirectionalPointInEveryValueFormat() {
    Grid g = shipped("wire-formats");
    assertNotNull(g.expectedRuntime());
    GridPoint quick = shipped("thesis-fmnist-mlp-quick").points().stream()
        .filter(p -> config(p).mode() == Mode.BIDIRECTIONAL && config(p).workers() == 20).findFirst().orElseThrow();
    Map<String, String> expected = new java.util.HashMap<>(quick.settings());
    Set<org.bitopk.compression.ValueFormat> formats = new HashSet<>();
    for (GridPoint p : g.points()) {
      TrainingConfig c = config(p);
      assertEquals(c.valuesUp(), c.valuesDown(), p.name());
      formats.add(c.valuesUp());
      Map<String, String> settings = new java.util.HashMap<>(p.settings());
      settings.remove(TrainFlags.VALUES_UP);
      settings.remove(TrainFlags.VALUES_DOWN);
      assertEquals(expected, settings, p.name());
      assertEquals(config(quick).learningRate(), c.learningRate(), p.name());
    }
    assertEquals(Set.of(org.bitopk.compression.ValueFormat.values()), formats);
    assertEquals(4, g.points().size());
  }
}

