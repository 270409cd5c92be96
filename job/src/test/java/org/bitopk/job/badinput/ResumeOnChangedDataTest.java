package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.LocalSpark;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run resumes only on the data it was trained on: its config.json records every input file's size and CRC32C,
 * and a --resume after the CSV was rewritten (even with its size and modification time kept) is refused in one line
 * naming the file, the run left as it was; on the same bytes the same --resume continues to the end. A catalog
 * table, which has no files, is compared by its rows' normalisation.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ResumeOnChangedDataTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  JavaSparkContext sc;
  @TempDir
  Path tmp;

  @BeforeAll
  void start() {
    sc = SPARK.context();
  }

  @Test
  void aResumeAfterTheCsvWasRewrittenIsRefused() throws IOException {
    Path csv = tmp.resolve("table.csv");
    Files.writeString(csv, table(200, 1));
    Path run = tmp.resolve("run");
    Cli.run(sc, "--data", "csv:" + csv, "--label", "label", "--workers", "2", "--batch-size", "10", "--epochs", "2",
        "--checkpoint-every", "7", "--output", run.toString(), "--quiet").succeeds();
    assertTrue(Files.readString(run.resolve("config.json")).contains(csv.toUri().getPath()),
        "config.json records the input file");
    Files.delete(run.resolve("_SUCCESS"));   // as if killed before its end: resumable from its checkpoints
    Map<String, byte[]> before = Cli.snapshot(run);
    String original = Files.readString(csv);
    FileTime modified = Files.getLastModifiedTime(csv);

    Files.writeString(csv, table(201, 2));
    Cli.run(sc, "--resume", run.toString(), "--quiet").failsWithOneLine(2, "--resume",
        "the input is not the data the run was trained on", csv.getFileName().toString(), "changed",
        "start a new run");
    Cli.assertSame(before, Cli.snapshot(run), "a refused resume leaves the run as it was");

    // other bytes of the same size under the recorded modification time (touch -r): the content decides
    String sameSize = original.replace("0,0.", "0,9.");
    org.junit.jupiter.api.Assertions.assertEquals(original.length(), sameSize.length());
    org.junit.jupiter.api.Assertions.assertNotEquals(original, sameSize);
    Files.writeString(csv, sameSize);
    Files.setLastModifiedTime(csv, modified);
    Cli.run(sc, "--resume", run.toString(), "--quiet").failsWithOneLine(2, "--resume",
        "the input is not the data the run was trained on", csv.getFileName().toString(), "changed", "CRC32C");
    Cli.assertSame(before, Cli.snapshot(run), "a refused resume leaves the run as it was");

    // the same bytes written again, with a new modification time: the same data, so the run continues
    Files.writeString(csv, original);
    Files.setLastModifiedTime(csv, FileTime.from(Instant.now().plusSeconds(60)));
    Cli.run(sc, "--resume", run.toString(), "--quiet").succeeds();
    assertTrue(Files.exists(run.resolve("_SUCCESS")), Cli.files(run).toString());
    com.fasterxml.jackson.databind.JsonNode files = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(run.resolve("config.json").toFile()).path("resolved").path("input_files");
    org.junit.jupiter.api.Assertions.assertEquals(1, files.size(), files.toString());
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(Files.readAllBytes(csv));
    org.junit.jupiter.api.Assertions.assertEquals(String.format("%08x", crc.getValue()),
        files.elements().next().path("crc32c").asText(), "config.json records the file's CRC32C");
  }

  /**
   * A catalog table has no files to read a checksum of: its row counts and the normalisation computed from its
   * rows are compared instead. Here a view whose rows were replaced by as many others.
   */
  @Test
  void aResumeOnACatalogTableWithOtherRowsIsRefused() throws IOException {
    org.apache.spark.sql.SparkSession spark = org.apache.spark.sql.SparkSession.builder().sparkContext(sc.sc())
        .getOrCreate();
    Path csv = tmp.resolve("view.csv");
    Files.writeString(csv, table(200, 3));
    spark.read().option("header", "true").option("inferSchema", "true").csv(csv.toString())
        .createOrReplaceTempView("resume_view");
    Path run = tmp.resolve("view-run");
    Cli.run(sc, "--table", "resume_view", "--label", "label", "--workers", "2", "--batch-size", "10", "--epochs",
        "2", "--checkpoint-every", "7", "--output", run.toString(), "--quiet").succeeds();
    Files.delete(run.resolve("_SUCCESS"));
    Map<String, byte[]> before = Cli.snapshot(run);

    Path shifted = tmp.resolve("shifted.csv");
    String rows = table(200, 3);
    int body = rows.indexOf('\n') + 1;   // every feature of every row gains a leading 1: x.yyy becomes 1x.yyy
    Files.writeString(shifted, rows.substring(0, body) + rows.substring(body).replace(",", ",1"));
    spark.read().option("header", "true").option("inferSchema", "true").csv(shifted.toString())
        .createOrReplaceTempView("resume_view");
    Cli.run(sc, "--resume", run.toString(), "--quiet").failsWithOneLine(2, "--resume",
        "the input is not the data the run was trained on", "the normalisation of table resume_view");
    Cli.assertSame(before, Cli.snapshot(run), "a refused resume leaves the run as it was");
  }

  /** A label and four features per row, four classes. */
  private static String table(int rows, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    StringBuilder b = new StringBuilder("label,a,b,c,d\n");
    for (int i = 0; i < rows; i++) {
      int label = i % 4;
      b.append(label);
      for (int j = 0; j < 4; j++) {
        b.append(',').append(label + random.nextDouble());
      }
      b.append('\n');
    }
    return b.toString();
  }
}
