package org.bitopk.notebooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.bitopk.cli.Main;
import org.bitopk.job.spark.SparkSetup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every note in {@code notebooks/} runs, the way Zeppelin runs it, on the output of short runs, and a
 * note with a misspelt column fails.
 */
@Tag("spark-api")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NotebooksTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  static final String RUN_NOTE = "bitopk-run_2N9VVM51K.zpln";
  static final String COMPARE_NOTE = "bitopk-compare_2N7KVVF11.zpln";
  /** Trains with Scala: run by {@link TrainingNoteTest} with the Scala interpreter, not here. */
  static final String TRAIN_NOTE = "bitopk-train_2N5TRA1NZ.zpln";

  private Path runs;
  private SparkSession spark;
  private Path bidirectional;

  /**
   * Four short real runs of the job on synthetic data (local[2], MLP 784-64-10, 4 workers, 2 epochs of 12
   * rounds): bidirectional with ξ, unidirectional, dense, and bidirectional on 2 workers so the comparison
   * has two worker counts. Then every note is checked once on them.
   */
  @BeforeAll
  void produceRunsAndStartSpark(@TempDir Path tmp) throws IOException {
    runs = tmp.resolve("runs");
    spark = SparkSession.builder().config(SparkSetup.conf("local[2]")).getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    train(sc, "bidir", "--mode", "bidirectional", "--xi");
    train(sc, "unidir", "--mode", "unidirectional");
    train(sc, "dense", "--mode", "dense");
    train(sc, "bidir-p2", "--mode", "bidirectional", "--workers", "2", "--batch-size", "20");
    bidirectional = runs.resolve("bidir");
    for (String file : chartNotes()) {
      NoteChecker checker = new NoteChecker(spark, Set.of());
      problems.put(file, checker.check(file, readNote(file), formValues(file)));
      results.put(file, Map.copyOf(checker.results));
    }
  }

  private void train(JavaSparkContext sc, String name, String... flags) {
    List<String> args = new java.util.ArrayList<>(List.of("train", "--dataset", "synthetic:n=480,test=120",
        "--model", "mlp-small", "--workers", "4", "--batch-size", "10", "--epochs", "2", "--seed", "3",
        "--quiet", "--output", runs.resolve(name).toString()));
    for (int i = 0; i < flags.length; i++) {
      int at = args.indexOf(flags[i]);
      if (at >= 0 && i + 1 < flags.length && !flags[i + 1].startsWith("--")) {
        args.set(at + 1, flags[++i]);   // override a default above
      } else {
        args.add(flags[i]);
      }
    }
    java.io.StringWriter err = new java.io.StringWriter();
    int code = Main.execute(args.toArray(String[]::new), sc, new PrintWriter(new java.io.StringWriter()),
        new PrintWriter(err, true));
    assertEquals(0, code, "train " + args + " failed: " + err);
  }

  /** Each shipped note checked once, on the runs: its problems and what its paragraphs returned. */
  private final Map<String, List<String>> problems = new java.util.HashMap<>();
  private final Map<String, Map<String, List<Row>>> results = new java.util.HashMap<>();

  @AfterAll
  void stopSpark() {
    if (spark != null) {
      spark.stop();
    }
  }

  static Path notebooksDir() {
    return Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
  }

  static List<String> noteFiles() throws IOException {
    try (Stream<Path> files = Files.list(notebooksDir())) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".zpln")).sorted()
          .collect(Collectors.toList());
    }
  }

  /** The notes that chart run output with %spark.sql. */
  static List<String> chartNotes() throws IOException {
    return noteFiles().stream().filter(f -> !f.equals(TRAIN_NOTE)).collect(Collectors.toList());
  }

  static JsonNode readNote(String file) throws IOException {
    return JSON.readTree(notebooksDir().resolve(file).toFile());
  }

  /** What a user types into the note form: the run directory, or all run directories for a comparison. */
  private Map<String, Object> formValues(String file) {
    return file.equals(COMPARE_NOTE)
        ? Map.of("runs", runs.toUri().toString() + "*")
        : Map.of("runPath", bidirectional.toString());
  }

  /** Checks a (mutated) note, running only the paragraph called {@code title}. */
  private List<String> check(String file, JsonNode note, String title) {
    return new NoteChecker(spark, Set.of()).check(file, note, formValues(file), title::equals);
  }

  @Test
  void theNotesAreShipped() throws IOException {
    assertEquals(List.of(COMPARE_NOTE, RUN_NOTE, TRAIN_NOTE), noteFiles());
  }

  @ParameterizedTest
  @MethodSource("chartNotes")
  void noteRunsOnRunOutput(String file) {
    assertTrue(problems.get(file).isEmpty(), String.join("\n", problems.get(file)));
    assertFalse(results.get(file).isEmpty());
  }

  @Test
  void compareNoteAcceptsAnExplicitListOfRuns() throws IOException {
    NoteChecker checker = new NoteChecker(spark, Set.of());
    String list = runs + "/{bidir,dense}";
    List<String> problems = checker.check(COMPARE_NOTE, readNote(COMPARE_NOTE), Map.of("runs", list), "Runs"::equals);
    assertTrue(problems.isEmpty(), String.join("\n", problems));
    List<Row> table = checker.results.get("Runs");
    assertEquals(2, table.size(), "one row per listed run");
  }

  @Test
  void compareNoteShowsTheDownlinkSavingOfBidirectionalRuns() {
    List<Row> saving = results.get(COMPARE_NOTE).get("Downlink: fraction of aggregated non-zeros kept, by workers");
    Map<String, Double> byRun = saving.stream().collect(Collectors.toMap(
        r -> r.getString(1) + " P=" + r.getInt(0), r -> r.getDouble(2)));
    assertEquals(Set.of("bidirectional P=4", "unidirectional P=4", "dense P=4", "bidirectional P=2"), byRun.keySet());
    // unidirectional and dense runs broadcast every aggregated non-zero; the server's TopK keeps fewer
    assertEquals(1.0, byRun.get("dense P=4"), 1e-9);
    assertEquals(1.0, byRun.get("unidirectional P=4"), 1e-9);
    assertTrue(byRun.get("bidirectional P=4") < byRun.get("bidirectional P=2"), byRun.toString());
    assertTrue(byRun.get("bidirectional P=2") < 1.0, byRun.toString());
  }

  @Test
  void runNoteOnARunWithoutXi() throws IOException {
    // a run without --xi has no xi field: the note still runs, its ξ chart is simply empty ...
    Map<String, Object> dense = Map.of("runPath", runs.resolve("dense").toString());
    assertEquals(List.of(), new NoteChecker(spark, Set.of("xi")).check(RUN_NOTE, readNote(RUN_NOTE), dense));
    // ... and the strict check (every declared field present, every chart filled) notices exactly that
    String xiChart = "ξ (runs trained with --xi)";
    List<String> strict = new NoteChecker(spark, Set.of()).check(RUN_NOTE, readNote(RUN_NOTE), dense,
        title -> title.equals(xiChart) || title.equals("Training loss per iteration"));
    assertEquals(3, strict.size(), strict.toString());
    assertTrue(strict.stream().filter(p -> p.contains("declares column xi")).count() == 2, strict.toString());
    assertTrue(strict.stream().anyMatch(p -> p.contains(xiChart) && p.contains("returned no rows")), strict.toString());
  }

  @Test
  void runsTableAgreesWithTheMetricsFiles() throws IOException {
    List<Row> table = results.get(COMPARE_NOTE).get("Runs");
    assertEquals(4, table.size());
    for (String name : List.of("bidir", "unidir", "dense", "bidir-p2")) {
      Row row = table.stream().filter(r -> r.getString(0).endsWith("(" + name + ")")).findFirst()
          .orElseThrow(() -> new AssertionError("no row for " + name + " in " + table));
      List<JsonNode> epochs = jsonLines(runs.resolve(name).resolve("metrics/epochs.jsonl"));
      List<JsonNode> iterations = jsonLines(runs.resolve(name).resolve("metrics/iterations.jsonl"));
      assertEquals(epochs.size(), row.getLong(4), name + " epochs");
      assertEquals(100 * epochs.get(epochs.size() - 1).get("test_accuracy").asDouble(), row.getDouble(5), 1e-9);
      // second formula: the per-iteration bytes summed must equal the last cumulative count
      double upBytes = iterations.stream().mapToDouble(n -> n.get("up_bytes").asDouble()).sum();
      assertEquals(upBytes / 1048576, row.getDouble(6), 1e-9, name + " uplink MiB");
    }
    assertTrue(table.stream().anyMatch(r -> r.getString(0).equals("bidirectional topk P=4 (bidir)")),
        table.toString());
    assertTrue(table.stream().anyMatch(r -> r.getString(0).equals("dense P=4 (dense)")), table.toString());
  }

  private static List<JsonNode> jsonLines(Path file) throws IOException {
    List<JsonNode> out = new java.util.ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      if (!line.isBlank()) {
        out.add(JSON.readTree(line));
      }
    }
    return out;
  }

  // ---- the same runs seen without Zeppelin: report.png / report.html and the report command

  @Test
  void everyRunWroteItsReport() throws IOException {
    for (String name : List.of("bidir", "unidir", "dense", "bidir-p2")) {
      Path dir = runs.resolve(name);
      java.awt.image.BufferedImage png = javax.imageio.ImageIO.read(dir.resolve("report.png").toFile());
      assertTrue(png != null && png.getWidth() > 1000 && png.getHeight() > 500, name + ": report.png");
      String html = Files.readString(dir.resolve("report.html"));
      assertTrue(html.contains("data:image/png;base64,") && html.contains("&quot;workers&quot;"), name);
      assertTrue(Files.exists(dir.resolve("_SUCCESS")), name);
    }
  }

  @Test
  void reportCommandComparesTheRuns() throws IOException {
    Path out = runs.resolveSibling("compare.png");
    String list = Stream.of("bidir", "unidir", "dense").map(n -> runs.resolve(n).toString())
        .collect(Collectors.joining(","));
    java.io.StringWriter err = new java.io.StringWriter();
    int code = Main.execute(new String[] {"report", "--runs", list, "--out", out.toString()}, null,
        new PrintWriter(new java.io.StringWriter()), new PrintWriter(err, true));
    assertEquals(0, code, err.toString());
    java.awt.image.BufferedImage png = javax.imageio.ImageIO.read(out.toFile());
    assertTrue(png != null && png.getWidth() > 1000, "compare.png decodes");

    err = new java.io.StringWriter();
    code = Main.execute(new String[] {"report", "--runs", runs.resolve("nope").toString(), "--out", out.toString()},
        null, new PrintWriter(new java.io.StringWriter()), new PrintWriter(err, true));
    assertEquals(2, code);
    assertEquals(1, err.toString().strip().lines().count(), err.toString());
    assertTrue(err.toString().contains("nope"), err.toString());
  }

  // ---- a note with a mistake must fail: mutated copies of the real notes

  private static JsonNode mutate(String file, String title, Consumer<ObjectNode> change) throws IOException {
    JsonNode note = readNote(file);
    for (JsonNode p : (ArrayNode) note.get("paragraphs")) {
      if (title.equals(p.path("title").asText())) {
        change.accept((ObjectNode) p);
        return note;
      }
    }
    throw new AssertionError("no paragraph " + title + " in " + file);
  }

  private static void replaceInText(ObjectNode paragraph, String from, String to) {
    String text = paragraph.get("text").asText();
    assertTrue(text.contains(from), "mutation target " + from + " not in " + text);
    paragraph.set("text", new TextNode(text.replace(from, to)));
  }

  @Test
  void misspeltChartColumnFails() throws IOException {
    JsonNode note = mutate(RUN_NOTE, "Training loss per iteration",
        p -> ((ObjectNode) p.at("/config/results/0/graph/values/0")).put("name", "losss"));
    List<String> problems = check(RUN_NOTE, note, "Training loss per iteration");
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("values column losss is not in the result"), problems.get(0));
  }

  @Test
  void misspeltColumnInTheQueryFails() throws IOException {
    JsonNode note = mutate(RUN_NOTE, "Training loss per iteration",
        p -> replaceInText(p, "avg(loss) AS loss", "avg(los) AS loss"));
    List<String> problems = check(RUN_NOTE, note, "Training loss per iteration");
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("Spark rejects a statement") && problems.get(0).contains("los"),
        problems.get(0));
  }

  @Test
  void misspeltFieldInAViewSchemaFails() throws IOException {
    JsonNode note = mutate(COMPARE_NOTE, "Test accuracy (%) vs epoch",
        p -> replaceInText(p, "test_accuracy DOUBLE", "test_acuracy DOUBLE"));
    List<String> problems = check(COMPARE_NOTE, note, "Test accuracy (%) vs epoch");
    assertFalse(problems.isEmpty());
    assertTrue(problems.get(0).contains("declares column test_acuracy"), problems.toString());
  }

  @Test
  void wrongChartColumnIndexFails() throws IOException {
    JsonNode note = mutate(RUN_NOTE, "Bytes per iteration (KiB)",
        p -> ((ObjectNode) p.at("/config/results/0/graph/values/1")).put("index", 1.0));
    List<String> problems = check(RUN_NOTE, note, "Bytes per iteration (KiB)");
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("down_kib has index 1.0, the result has it at 2"), problems.get(0));
  }

  @Test
  void formDefaultOutOfStepWithTheSavedFormFails() throws IOException {
    ObjectNode note = (ObjectNode) readNote(RUN_NOTE);
    ((ObjectNode) note.at("/noteForms/runPath")).put("defaultValue", "/somewhere/else");
    List<String> problems = check(RUN_NOTE, note, "Training loss per iteration");
    assertFalse(problems.isEmpty());
    assertTrue(problems.stream().allMatch(p -> p.contains("note form runPath default")), problems.toString());
  }

  @Test
  void malformedIdsFail() throws IOException {
    ObjectNode note = (ObjectNode) readNote(RUN_NOTE);
    note.put("id", "2n9vvm51k");
    ((ObjectNode) note.get("paragraphs").get(1)).put("id", "20150210-015259_1403135953");
    List<String> problems = check(RUN_NOTE, note, "Training loss per iteration");
    assertTrue(problems.stream().anyMatch(p -> p.contains("is not 9 uppercase alphanumerics")), problems.toString());
    assertTrue(problems.stream().anyMatch(p -> p.contains("should be named bitopk-run_2n9vvm51k.zpln")));
    assertTrue(problems.stream().anyMatch(p -> p.contains("id does not follow paragraph_")), problems.toString());
  }
}
