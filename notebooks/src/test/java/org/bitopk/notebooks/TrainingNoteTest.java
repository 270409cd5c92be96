package org.bitopk.notebooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.bitopk.ml.BitopkClassificationModel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The training note's Scala paragraphs run, in order, in the line's Scala interpreter (2.13 or 2.12) set up as
 * Zeppelin's Spark interpreter sets it up ({@link ZeppelinScala}), on a SparkContext with Spark's defaults plus the
 * interpreter properties the note's first paragraph asks for (not the job's own Spark setup), and the run
 * it trains is then charted by the run note.
 */
@Tag("spark-api")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TrainingNoteTest {
  private SparkSession spark;
  private ZeppelinScala scala;
  private NoteForms z;
  private NoteChecker checker;
  private List<String> problems;
  private Path runs;

  @BeforeAll
  void runTheNote(@TempDir Path tmp) throws IOException {
    Path classes = Files.createDirectories(tmp.resolve("repl-classes"));
    runs = tmp.resolve("runs");
    spark = SparkSession.builder().master("local[2]").appName("zeppelin-note")
        .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false").config("spark.repl.class.outputDir", classes.toString())
        // the interpreter properties the note asks for
        .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .config("spark.kryo.registrator", "org.bitopk.job.spark.BitopkKryoRegistrator")
        .config("spark.executorEnv.OMP_NUM_THREADS", "1")
        .getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    z = new NoteForms(Map.of("runsDir", runs.toUri().toString()));
    scala = new ZeppelinScala(spark, z, classes);
    checker = new NoteChecker(spark, Set.of()).runningScalaWith(scala);
    problems = checker.check(NotebooksTest.TRAIN_NOTE, NotebooksTest.readNote(NotebooksTest.TRAIN_NOTE), Map.of());
  }

  @AfterAll
  void stop() {
    if (scala != null) {
      scala.close();
    }
    if (spark != null) {
      spark.stop();
    }
  }

  @Test
  void everyParagraphCompilesAndRuns() {
    assertTrue(problems.isEmpty(), String.join("\n", problems));
    assertEquals(7, checker.outputs.size(), checker.outputs.keySet().toString());
    assertEquals(Map.of("runsDir", "file:///tmp/bitopk-runs"), z.declared(), "the form the note declares");
  }

  @Test
  void itTrainsAndEvaluatesWithTheEstimator() {
    double accuracy = (Double) scala.valueOf("accuracy");
    assertTrue(accuracy > 0.9, "accuracy " + accuracy);
    @SuppressWarnings("unchecked")
    Dataset<Row> predictions = (Dataset<Row>) scala.valueOf("predictions");
    List<Row> rows = predictions.select("label", "prediction").collectAsList();
    long correct = rows.stream().filter(r -> r.getDouble(0) == r.getDouble(1)).count();
    assertEquals((double) correct / rows.size(), accuracy, 1e-12);
    String printed = checker.outputs.get("Evaluate on held-out images");
    assertTrue(printed.contains(String.format("test accuracy on %d held-out images: %.2f%%", rows.size(),
        100 * accuracy)), printed);
  }

  @Test
  void theRunDirectoryIsAFinishedRunOfTheseSettings() throws IOException {
    Path run = runDirectory();
    assertTrue(run.startsWith(runs), run + " is under the form's runsDir " + runs);
    assertTrue(Files.exists(run.resolve("_SUCCESS")));
    JsonNode config = new ObjectMapper().readTree(run.resolve("config.json").toFile());
    assertEquals("dataframe", config.get("data-format").asText());
    assertEquals(4, config.get("workers").asInt());
    assertEquals("bidirectional", config.get("mode").asText());
    assertEquals(10, config.get("resolved").get("table").get("classes").asInt());
    assertEquals(2, Files.readAllLines(run.resolve("metrics/epochs.jsonl")).size());
    assertTrue(checker.outputs.get("Training metrics of the run").contains("test_accuracy"));
  }

  @Test
  void theSavedPipelinePredictsTheSame() {
    @SuppressWarnings("unchecked")
    Dataset<Row> test = (Dataset<Row>) scala.valueOf("test");
    @SuppressWarnings("unchecked")
    Dataset<Row> predictions = (Dataset<Row>) scala.valueOf("predictions");
    PipelineModel loaded = PipelineModel.load((String) scala.valueOf("savedAt"));
    assertEquals(predictions.select("probability", "prediction").collectAsList(),
        loaded.transform(test).select("probability", "prediction").collectAsList());
  }

  @Test
  void itPointsTheRunNoteAtTheRunAndTheRunNoteChartsIt() throws IOException {
    String shown = checker.outputs.get("Inspect the run");
    String runDirectory = ((BitopkClassificationModel) scala.valueOf("fitted")).runDirectory();
    assertTrue(shown.startsWith("%md") && shown.contains("`" + runDirectory + "`") && shown.contains("2N9VVM51K"),
        shown);
    NoteChecker runNote = new NoteChecker(spark, Set.of("xi"));
    List<String> charted = runNote.check(NotebooksTest.RUN_NOTE, NotebooksTest.readNote(NotebooksTest.RUN_NOTE),
        Map.of("runPath", runDirectory));
    assertTrue(charted.isEmpty(), String.join("\n", charted));
    assertEquals(2, runNote.results.get("Test accuracy (%) per epoch").size(), runNote.results.keySet().toString());
  }

  private Path runDirectory() {
    return Path.of(URI.create(((BitopkClassificationModel) scala.valueOf("fitted")).runDirectory()));
  }
}
