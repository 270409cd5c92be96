package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.bitopk.job.ExitCode;
import org.bitopk.job.checkpoint.CheckpointStore;
import org.bitopk.job.output.RunManifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every failure is one line on the real stderr of the job's own JVM: divergence, SIGINT/SIGTERM, an output directory that cannot be created, a file system whose jars
 * are missing, malformed, unknown and unreachable masters, a model that does not fit the images. Spark's and
 * DL4J's messages go to the run's log file; no stack trace reaches the console.
 */
class OneLineFailuresTest {
  static final Duration TIMEOUT = Duration.ofMinutes(3);

  @TempDir
  static Path tmp;

  @Test
  void divergenceIsOneLineAndKeepsTheCheckpoints() throws Exception {
    Path out = tmp.resolve("diverged");
    JobProcess.Finished job = JobProcess.run(tmp.resolve("streams"), List.of("--dataset", "counterexample",
        "--epochs", "200", "--lr", "1e6", "--checkpoint-every", "1", "--master", "local[2]", "--output",
        out.toString()), TIMEOUT);
    assertOneLine(job, ExitCode.FAILURE, "bitopk: training diverged: ", "lower --lr", "checkpoint");

    List<String> files = Cli.files(out);
    List<String> checkpoints = files.stream().filter(f -> f.startsWith("checkpoints/")).toList();
    List<String> logs = files.stream().filter(f -> f.startsWith("logs/")).toList();
    List<String> expected = new ArrayList<>(List.of("config.json", "metrics/epochs.jsonl",
        "metrics/iterations.jsonl"));
    expected.addAll(checkpoints);
    expected.addAll(logs);
    List<String> recorded = new ArrayList<>(expected);
    expected.add(RunManifest.FILE);
    assertEquals(expected.stream().sorted().toList(), files, "exactly the unfinished run, no model, no _SUCCESS");
    assertTrue(RunManifestTest.recordedPaths(out).containsAll(recorded), "the manifest names every file, the "
        + "driver's log included: " + RunManifestTest.recordedPaths(out));
    assertEquals(2, checkpoints.size(), "the newest two checkpoints are kept");
    assertIntact(out);
    assertEquals(1, logs.size(), files.toString());
    String log = Files.readString(out.resolve(logs.get(0)));
    assertTrue(log.contains("TaskSetManager") && log.contains("bitopk-diverged"),
        "Spark's messages about the failed tasks went into the log:\n" + log);
  }

  @ParameterizedTest(name = "SIG{0}")
  @CsvSource({"INT, 130", "TERM, 143"})
  void anInterruptIsOneLineAndKeepsTheCheckpoints(String signal, int code) throws Exception {
    Path out = tmp.resolve("interrupted-" + signal);
    JobProcess job = JobProcess.start(tmp.resolve("streams"), List.of("--dataset", "counterexample", "--epochs",
        "100000", "--checkpoint-every", "5", "--master", "local[2]", "--output", out.toString()));
    Path checkpoint = out.resolve("checkpoints/checkpoint-0000000010.bin");
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!Files.exists(checkpoint) && job.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertTrue(Files.exists(checkpoint), "the run reached its second checkpoint");
    job.signal(signal);
    JobProcess.Finished finished = job.await(TIMEOUT);
    assertOneLine(finished, code, "bitopk: interrupted by SIG" + signal, "--resume " + "file:" + out);

    List<String> files = Cli.files(out);
    assertTrue(files.containsAll(List.of("config.json", "metrics/iterations.jsonl", "metrics/epochs.jsonl")),
        files.toString());
    assertTrue(files.stream().anyMatch(f -> f.startsWith("logs/driver-")), files.toString());
    for (String absent : List.of("_SUCCESS", "model.json", "_bitopk.lock", "summary.txt")) {
      assertFalse(files.contains(absent), absent + " in " + files);
    }
    assertIntact(out);
  }

  /**
   * A signal in the job's first seconds (its checks, Spark starting), before it writes anything, is one line that
   * says to run the same command again, and the output directory is not created.
   */
  @ParameterizedTest(name = "SIG{0} after {1} ms")
  @CsvSource({"INT, 1000, 130", "TERM, 700, 143", "TERM, 2000, 143"})
  void aSignalInTheFirstSecondsIsOneLineSayingToRunAgain(String signal, long afterMs, int code) throws Exception {
    Path out = tmp.resolve("early-" + signal + "-" + afterMs);
    long started = System.nanoTime();
    JobProcess job = JobProcess.start(tmp.resolve("streams"), List.of("--dataset", "counterexample", "--epochs",
        "100000", "--master", "local[2]", "--output", out.toString()));
    // the command line's parser is loaded after the handlers: a loaded machine may take longer than afterMs to get
    // there, and a signal before the JVM ran any of the job's code ends it the JVM's way, without a line
    job.awaitJarOpened("picocli", TIMEOUT);
    Thread.sleep(Math.max(0, afterMs - (System.nanoTime() - started) / 1_000_000));
    job.signal(signal);
    JobProcess.Finished finished = job.await(TIMEOUT);
    assertOneLine(finished, code, "bitopk: interrupted by SIG" + signal);
    assertTrue(Stream.of("run the same command again", "--overwrite", "--resume").anyMatch(finished.err()::contains),
        "what to do next: " + finished.err());
    if (finished.err().contains("run the same command again")) {
      // the driver's log, and the manifest that records it (bitopk's own list of what it created), may be there
      List<String> left = Files.exists(out) ? Cli.files(out) : List.of();
      assertTrue(left.stream().allMatch(f -> f.startsWith("logs/") || f.equals(RunManifest.FILE)),
          "nothing of the run: " + (Files.exists(out) ? left : "no directory"));
      if (left.contains(RunManifest.FILE)) {
        java.util.Set<String> recorded = RunManifestTest.recordedPaths(out);
        assertTrue(recorded.stream().allMatch(f -> f.equals("logs") || f.startsWith("logs/")),
            "the manifest records the logs only: " + recorded);
      }
    }
  }

  static Stream<Arguments> failuresBeforeSpark() throws IOException {
    Path aFile = Files.writeString(tmp.resolve("a-file"), "x");
    int refusingPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      refusingPort = socket.getLocalPort();   // closed again: connecting is refused
    }
    return Stream.of(
        Arguments.of("output in /proc", List.of("--dataset", "counterexample", "--output", "/proc/bitopk-run"),
            2, "/proc/bitopk-run"),
        Arguments.of("output under a file", List.of("--dataset", "counterexample", "--output",
            aFile.resolve("run").toString()), 2, "a path above it is a file"),
        Arguments.of("a host in a local file URI", List.of("--dataset", "counterexample", "--output",
            "file://host-less" + tmp.resolve("host-less")), 2, "--output file://host-less" + tmp.resolve("host-less")
            + ": the file file system here is file:///, which does not serve \"host-less\"; expected a location "
            + "such as file:" + tmp.resolve("host-less")),
        Arguments.of("s3a without its jars", List.of("--dataset", "counterexample", "--output", "s3a://bucket/run"),
            2, "no Hadoop FileSystem for scheme \"s3a\""),
        Arguments.of("malformed master", List.of("--dataset", "counterexample", "--master", "spark://head",
            "--output", tmp.resolve("m1").toString()), 2, "'spark://head' is not a Spark master URL"),
        Arguments.of("unknown master host", List.of("--dataset", "counterexample", "--master",
            "spark://nonexistent.invalid:7077", "--output", tmp.resolve("m2").toString()), 2,
            "spark://nonexistent.invalid:7077"),
        Arguments.of("unreachable master", List.of("--dataset", "counterexample", "--master",
            "spark://127.0.0.1:" + refusingPort, "--output", tmp.resolve("m3").toString()), 1,
            "refused the connection"),
        Arguments.of("cnn on 4x4 images", List.of("--dataset", "synthetic:n=64,test=16,shape=1x4x4", "--model",
            "cnn", "--output", tmp.resolve("cnn").toString()), 2, "--model cnn does not fit the 1x4x4 images"));
  }

  /**
   * The cases run side by side, each in its own JVM: they end before Spark starts, so their cost is the
   * JVM's start, which overlaps well.
   */
  @Test
  void failuresFoundBeforeSparkAreOneLineAndWriteNothing() throws Exception {
    List<Arguments> cases = failuresBeforeSpark().toList();
    List<JobProcess> jobs = new ArrayList<>();
    for (Arguments c : cases) {
      List<String> all = new ArrayList<>(args(c));
      all.add("--quiet");
      jobs.add(JobProcess.start(tmp.resolve("streams"), all));
    }
    List<org.junit.jupiter.api.function.Executable> checks = new ArrayList<>();
    for (int i = 0; i < cases.size(); i++) {
      Object[] c = cases.get(i).get();
      JobProcess.Finished job = jobs.get(i).await(TIMEOUT);
      String output = args(cases.get(i)).get(args(cases.get(i)).indexOf("--output") + 1);
      checks.add(() -> {
        assertOneLine(job, (Integer) c[2], "bitopk: ", (String) c[3]);
        String local = output.replaceFirst("^file://[^/]*", "");
        if (local.startsWith(tmp.toString())) {
          assertFalse(Files.exists(Path.of(local)), c[0] + ": nothing created");
        }
      });
    }
    org.junit.jupiter.api.Assertions.assertAll(checks);
  }

  @SuppressWarnings("unchecked")
  private static List<String> args(Arguments c) {
    return (List<String>) c.get()[1];
  }

  static void assertOneLine(JobProcess.Finished job, int code, String... named) {
    assertEquals(code, job.code(), () -> "exit code; stderr:\n" + job.err());
    assertEquals(1, job.errLines().size(), () -> "exactly one line on stderr, got:\n" + job.err());
    for (String n : named) {
      assertTrue(job.err().contains(n), () -> "the line must contain " + n + ": " + job.err());
    }
    assertFalse(job.err().contains("\tat ") || job.err().contains("Exception"), () -> "no trace: " + job.err());
    assertEquals("", job.out(), "nothing on stdout");
  }

  /** Every checkpoint file left is intact. */
  static void assertIntact(Path run) throws IOException {
    CheckpointStore store = CheckpointStore.in(FileSystem.getLocal(new Configuration()),
        new org.apache.hadoop.fs.Path(run.toUri()), 2);
    assertFalse(store.listNewestFirst().isEmpty(), "checkpoints kept");
    for (org.apache.hadoop.fs.Path p : store.listNewestFirst()) {
      store.read(p);
    }
  }
}
