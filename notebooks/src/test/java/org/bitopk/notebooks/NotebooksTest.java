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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every note in {@code notebooks/} runs, the way Zeppelin runs it, on the output of short runs, and a
 * note with a misspelt column fails.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NotebooksTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  static final String RUN_NOTE = "bitopk-run_2N9VVM51K.zpln";
  static final String COMPARE_NOTE = "bitopk-compare_2N7KVVF11.zpln";

  private Path runs;
  private SparkSession spark;
  private Path bidirectional;

  @BeforeAll
  void produceRunsAndStartSpark(@TempDir Path tmp) throws IOException {
    runs = tmp;
    bidirectional = RunOutputFixture.write(runs.resolve("bidir"), "bidirectional", "topk", 4, 24, 8);
    RunOutputFixture.write(runs.resolve("unidir"), "unidirectional", "topk", 4, 24, 8);
    RunOutputFixture.write(runs.resolve("dense"), "dense", "none", 4, 24, 8);
    spark = SparkSession.builder().master("local[2]").appName("notebooks-test")
        .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1")
        .getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    for (String file : noteFiles()) {
      NoteChecker checker = new NoteChecker(spark, Set.of());
      problems.put(file, checker.check(file, readNote(file), formValues(file)));
      results.put(file, Map.copyOf(checker.results));
    }
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

  static JsonNode readNote(String file) throws IOException {
    return JSON.readTree(notebooksDir().resolve(file).toFile());
  }

  /** What a user types into the note form: the run directory, or all run directories for a comparison. */
  private Map<String, Object> formValues(String file) {
    return file.equals(COMPARE_NOTE)
        ? Map.of("runs", runs.toUri().toString() + "*")
        : Map.of("runPath", bidirectional.toUri().toString());
  }

  /** Checks a (mutated) note, running only the paragraph called {@code title}. */
  private List<String> check(String file, JsonNode note, String title) {
    return new NoteChecker(spark, Set.of()).check(file, note, formValues(file), title::equals);
  }

  @Test
  void bothNotesAreShipped() throws IOException {
    assertEquals(List.of(COMPARE_NOTE, RUN_NOTE), noteFiles());
  }

  @ParameterizedTest
  @MethodSource("noteFiles")
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
    Map<String, Double> kept = saving.stream().collect(Collectors.toMap(r -> r.getString(1), r -> r.getDouble(2)));
    assertEquals(Set.of("bidirectional", "unidirectional", "dense"), kept.keySet());
    assertEquals(1.0, kept.get("dense"), 1e-9);
    assertTrue(kept.get("bidirectional") < 1.0, kept.toString());
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
