package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.output.RunLease;
import org.bitopk.job.output.RunManifest;
import org.bitopk.job.run.TrainingRun;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run's manifest names every file and directory the run wrote, with its size; --overwrite removes exactly
 * those still as written and refuses, naming them, a user's entries that merely look like bitopk's
 * ({@code _tmp-*} names), a file of another size, and checkpoints of another run; pruning never removes a
 * run's own newest checkpoints because another run's lie beside them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunManifestTest {
  static final ObjectMapper JSON = new ObjectMapper();

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
  void theManifestNamesExactlyWhatTheRunWroteWithItsSize() throws IOException {
    Path run = finishedRun("listed");
    Map<String, Long> found = walk(run);
    Map<String, Long> recorded = new TreeMap<>();
    for (JsonNode e : JSON.readTree(run.resolve(RunManifest.FILE).toFile()).get("entries")) {
      recorded.put(e.get("path").asText(), e.get("kind").asText().equals("directory") ? -2L : e.get("size").asLong());
    }
    assertEquals(found, recorded, "every entry of the directory, each with its size (directories -2)");
    assertTrue(recorded.containsKey("checkpoints/checkpoint-0000000010.bin") && recorded.containsKey("model.json")
        && recorded.containsKey("report.html") && recorded.containsKey("_SUCCESS"), recorded.toString());
  }

  @Test
  void aUsersTemporaryLookingDirectoryOrFileIsNeverRemoved() throws IOException {
    Path run = finishedRun("look-alikes");
    Files.createDirectories(run.resolve("_tmp-mine"));
    Files.writeString(run.resolve("_tmp-mine/data.csv"), "1,2\n");
    Files.createDirectories(run.resolve("metrics/_tmp-plots"));
    Files.writeString(run.resolve("_tmp-notes.txt"), "lr too high?\n");
    assertOverwriteRefused(run, "entries bitopk did not write", "_tmp-mine/", "metrics/_tmp-plots/",
        "_tmp-notes.txt");
  }

  @Test
  void aFileOfTheRunChangedSinceItWasWrittenIsNotRemoved() throws IOException {
    Path run = finishedRun("edited");
    Files.writeString(run.resolve("summary.txt"), "my comments on this run\n",
        java.nio.file.StandardOpenOption.APPEND);
    assertOverwriteRefused(run, "files of its run changed since the run wrote them", "summary.txt");
  }

  @Test
  void aRunWithoutManifestIsRecognisedAsBeforeAndGetsOneWhenReplaced() throws IOException {
    Path run = finishedRun("legacy");
    Files.delete(run.resolve(RunManifest.FILE));
    Files.createDirectories(run.resolve("_tmp-mine"));
    Files.writeString(run.resolve("_tmp-mine/data.csv"), "1,2\n");
    assertOverwriteRefused(run, "entries bitopk did not write", "_tmp-mine/");
    deleteTree(run.resolve("_tmp-mine"));

    List<String> overwrite = new ArrayList<>(args(run));
    overwrite.add("--overwrite");
    Cli.run(sc, overwrite).succeeds();
    assertEquals(walk(run).keySet(), recordedPaths(run), "the new run's manifest names its files");
  }

  @Test
  void checkpointsOfAnotherRunBesideAResumedRunsNeverPushItsOwnOut() throws IOException {
    Path other = tmp.resolve("other");
    TrainingRun.execute(sc, TrainingConfig.builder().dataset("counterexample").epochs(95).checkpointEvery(45)
        .output(other.toString()).quiet(true).build(), false, List.of());
    Path run = tmp.resolve("resumed");
    TrainingConfig config = TrainingConfig.builder().dataset("counterexample").epochs(40).checkpointEvery(10)
        .output(run.toString()).quiet(true).build();
    assertThrows(IllegalStateException.class,
        () -> TrainingRun.execute(sc, config, false, List.of(OutputOwnershipTest.crashAt(25))));
    for (String name : List.of("checkpoint-0000000045.bin", "checkpoint-0000000090.bin")) {
      Files.copy(other.resolve("checkpoints").resolve(name), run.resolve("checkpoints").resolve(name));
    }
    Map<String, byte[]> before = Cli.snapshot(run);

    // the manifest knows them as another run's: the resume is refused, nothing changes
    Cli.run(sc, "--resume", run.toString(), "--quiet").failsWithOneLine(2, "--resume",
        "checkpoints/checkpoint-0000000045.bin", "checkpoints/checkpoint-0000000090.bin");
    Cli.assertSame(before, Cli.snapshot(run), "a refused resume");

    // a run written before manifests existed is resumed; its pruning keeps its own newest two
    Files.delete(run.resolve(RunManifest.FILE));
    TrainingConfig resume = config.toBuilder().resume(true).build();
    assertThrows(IllegalStateException.class,
        () -> TrainingRun.execute(sc, resume, false, List.of(OutputOwnershipTest.crashAt(35))));
    assertEquals(List.of("checkpoint-0000000020.bin", "checkpoint-0000000030.bin", "checkpoint-0000000045.bin",
        "checkpoint-0000000090.bin"), names(run.resolve("checkpoints")), "its own 20 and 30, the other's untouched");
    for (String name : List.of("checkpoint-0000000045.bin", "checkpoint-0000000090.bin")) {
      assertTrue(java.util.Arrays.equals(Files.readAllBytes(other.resolve("checkpoints").resolve(name)),
          Files.readAllBytes(run.resolve("checkpoints").resolve(name))), name);
    }
    TrainingRun.Result done = TrainingRun.execute(sc, resume, false, List.of());
    assertEquals(40, OutputOwnershipTest.lines(run.resolve("metrics/iterations.jsonl")).size(), done.runId());
  }

  // ---- helpers

  private Path finishedRun(String name) {
    Path run = tmp.resolve(name);
    Cli.run(sc, args(run)).succeeds();
    return run;
  }

  private static List<String> args(Path run) {
    return List.of("--dataset", "counterexample", "--epochs", "20", "--checkpoint-every", "5", "--output",
        run.toString(), "--quiet");
  }

  /** Refused with --overwrite in one line naming every {@code named}; not one byte changed. */
  private void assertOverwriteRefused(Path run, String... named) throws IOException {
    Map<String, byte[]> before = Cli.snapshot(run);
    List<String> names = walk(run).keySet().stream().toList();
    List<String> overwrite = new ArrayList<>(args(run));
    overwrite.add("--overwrite");
    List<String> expected = new ArrayList<>(List.of("--output"));
    expected.addAll(List.of(named));
    Cli.run(sc, overwrite).failsWithOneLine(2, expected.toArray(String[]::new));
    Cli.assertSame(before, Cli.snapshot(run), "a refused --overwrite");
    assertEquals(names, walk(run).keySet().stream().toList(), "the same directories too");
  }

  /** Every entry under {@code dir} but the lease, the manifest and checksum side files: path to size (-2 a directory). */
  static Map<String, Long> walk(Path dir) throws IOException {
    Map<String, Long> found = new TreeMap<>();
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.filter(p -> !p.equals(dir)).toList()) {
        String name = p.getFileName().toString();
        if (name.endsWith(".crc") || name.equals(RunLease.FILE) || name.equals(RunManifest.FILE)) {
          continue;
        }
        found.put(dir.relativize(p).toString(), Files.isDirectory(p) ? -2L : Files.size(p));
      }
    }
    return found;
  }

  static java.util.Set<String> recordedPaths(Path run) throws IOException {
    java.util.Set<String> paths = new java.util.TreeSet<>();
    JSON.readTree(run.resolve(RunManifest.FILE).toFile()).get("entries").forEach(e -> paths.add(e.get("path")
        .asText()));
    return paths;
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".crc")).sorted().toList();
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
    assertFalse(Files.exists(dir));
  }
}
