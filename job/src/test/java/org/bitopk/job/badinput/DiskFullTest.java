package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.checkpoint.CheckpointStore;
import org.bitopk.job.output.KilledWrites;
import org.bitopk.job.output.RunLease;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A full disk, on {@link FullDiskFileSystem}: whichever file the
 * disk fills up on, the run ends with one line and exit code 1, no file under a final name is truncated, no
 * {@code _SUCCESS}, no lease and no temporary file is left, and a resume with space again finishes the run
 * (removing the temporary file a killed checkpoint write leaves).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DiskFullTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final int ROUNDS = 20;

  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  JavaSparkContext sc;
  @TempDir
  Path tmp;

  @BeforeAll
  void start() {
    sc = SPARK.context();
    FullDiskFileSystem.register(sc.hadoopConfiguration());
  }


  @AfterEach
  void emptyTheDisk() {
    FullDiskFileSystem.unlimited();
  }

  /** Which file the disk fills up on: a pattern of the path written, and how many of its bytes still fit. */
  static Stream<Arguments> fullWhileWriting() {
    return Stream.of(
        Arguments.of("config.json", ".*config\\.json.*", 10),
        Arguments.of("metrics", ".*/metrics/iterations\\.jsonl", 9000),
        Arguments.of("second checkpoint", ".*checkpoint-0000000010\\.bin.*", 100),
        Arguments.of("model", ".*model\\.json", 100),
        Arguments.of("summary", ".*summary\\.txt.*", 50),
        Arguments.of("report picture", ".*report\\.png.*", 1000),
        Arguments.of("report page", ".*report\\.html.*", 1000));
  }

  @ParameterizedTest(name = "full while writing the {0}")
  @MethodSource("fullWhileWriting")
  void aFullDiskIsOneLineAndNoTruncatedFile(String what, String pathPattern, long fits) throws IOException {
    Path dir = tmp.resolve("disk-" + what.replaceAll("[^a-z]", "-"));
    String uri = FullDiskFileSystem.SCHEME + "://" + dir;
    FullDiskFileSystem.fillAfter(fits, pathPattern);
    Cli.run(sc, "--dataset", "counterexample", "--epochs", Integer.toString(ROUNDS), "--checkpoint-every", "5",
        "--output", uri, "--quiet").failsWithOneLine(1, "No space left on device", "cannot ");
    String failed = FullDiskFileSystem.failedPath();
    assertNotNull(failed, "the disk filled up");
    assertTrue(failed.matches(pathPattern), "it filled up on the " + what + ": " + failed);

    if (what.equals("config.json")) {
      assertFalse(Files.exists(dir), "a run that recorded nothing leaves nothing, not even its directory");
      return;
    }
    assertFalse(Files.exists(dir.resolve("_SUCCESS")), "no _SUCCESS");
    assertFalse(Files.exists(dir.resolve(RunLease.FILE)), "the lease is released");
    assertNoTemporaryFile(dir);
    assertCompleteOrAbsent(dir);
    String target = switch (what) {
      case "model" -> "model.json";
      case "summary" -> "summary.txt";
      case "report picture" -> "report.png";
      case "report page" -> "report.html";
      case "second checkpoint" -> "checkpoints/checkpoint-0000000010.bin";
      default -> "model.json";
    };
    assertFalse(Files.exists(dir.resolve(target)), target + " is not there at all, rather than truncated");

    // space again: the run is resumed and finished; a temporary file of a killed checkpoint write goes away
    FullDiskFileSystem.unlimited();
    KilledWrites.recordedAsWriting(dir, "checkpoints/_tmp-checkpoint-0000000015.bin-killed00");
    Files.writeString(dir.resolve("checkpoints/_tmp-checkpoint-0000000015.bin-killed00"), "partial");
    Cli.Outcome resumed = Cli.run(sc, "--resume", uri, "--quiet").succeeds();
    assertEquals("", resumed.err());
    assertTrue(Files.exists(dir.resolve("_SUCCESS")));
    assertNoTemporaryFile(dir);
    assertCompleteOrAbsent(dir);
    for (String file : List.of("config.json", "model.json", "summary.txt", "report.png", "report.html")) {
      assertTrue(Files.exists(dir.resolve(file)), file);
    }
    long[] rounds = OutputOwnershipTest.lines(dir.resolve("metrics/iterations.jsonl")).stream()
        .mapToLong(l -> l.get("iteration").asLong()).toArray();
    assertEquals(List.of(LongStream.range(0, ROUNDS).boxed().toArray()), List.of(LongStream.of(rounds).boxed()
        .toArray()), "every round once, in order");
  }

  /** No hidden temporary file anywhere in the run directory. */
  static void assertNoTemporaryFile(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      List<Path> left = walk.filter(p -> p.getFileName().toString().startsWith("_tmp-")).toList();
      assertEquals(List.of(), left, "temporary files left");
    }
  }

  /** Every final file that exists is complete. */
  static void assertCompleteOrAbsent(Path dir) throws IOException {
    Path config = dir.resolve("config.json");
    if (Files.exists(config)) {
      assertTrue(JSON.readTree(config.toFile()).hasNonNull("run"), "config.json complete");
    }
    Path model = dir.resolve("model.json");
    if (Files.exists(model)) {
      JsonNode m = JSON.readTree(model.toFile());
      assertEquals(100, m.get("parameters").size(), "model.json complete");
    }
    Path summary = dir.resolve("summary.txt");
    if (Files.exists(summary)) {
      List<String> lines = Files.readAllLines(summary);
      assertTrue(lines.get(lines.size() - 1).startsWith("  output "), "summary.txt complete: " + lines);
    }
    Path html = dir.resolve("report.html");
    if (Files.exists(html)) {
      assertTrue(Files.readString(html, StandardCharsets.UTF_8).endsWith("</html>\n"), "report.html complete");
    }
    Path png = dir.resolve("report.png");
    if (Files.exists(png)) {
      assertNotNull(ImageIO.read(png.toFile()), "report.png decodes");
    }
    Path checkpoints = dir.resolve("checkpoints");
    if (Files.exists(checkpoints)) {
      CheckpointStore store = CheckpointStore.in(FileSystem.getLocal(new Configuration()),
          new org.apache.hadoop.fs.Path(dir.toUri()), 2);
      for (org.apache.hadoop.fs.Path p : store.listNewestFirst()) {
        store.read(p);   // throws if damaged
      }
    }
  }
}
