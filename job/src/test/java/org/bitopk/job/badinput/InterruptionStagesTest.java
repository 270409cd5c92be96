package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bitopk.job.output.RunManifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM at each stage of a run, sent while one exact file is being written (the job is held inside that write
 * by {@link PausingFileSystem}): the job always completes the write, stops at the next safe point and prints one
 * line whose advice matches what the directory then holds; the advice, followed literally in a new job, works.
 * A signal during the final files lets the run finish: exit 0, {@code _SUCCESS} last, the report complete.
 */
class InterruptionStagesTest {
  static final Duration TIMEOUT = Duration.ofMinutes(3);
  static final Pattern RESUME = Pattern.compile("--resume (\\S+)$");

  @TempDir
  static Path tmp;

  @Test
  void whileConfigIsWrittenNothingIsRecordedAndTheSameCommandRunsAgain() throws Exception {
    Path out = tmp.resolve("config-stage");
    List<String> command = command(out);
    JobProcess.Finished stopped = interruptWhileWriting("_tmp-config\\.json-.*", command);
    assertOneLine(stopped, 143, "no round of the run was recorded", "run the same command again");
    List<String> files = Cli.files(out).stream().filter(f -> !f.equals(RunManifest.FILE)).toList();
    assertTrue(files.size() == 1 && files.get(0).matches("logs/driver-.*\\.log"), "only the log: " + files);
    assertTrue(RunManifestTest.recordedPaths(out).contains(files.get(0)), "the manifest names the log");

    assertFinished(rerun(command), out);
  }

  @Test
  void beforeTheFirstCheckpointTheRunIsStartedAgainWithOverwrite() throws Exception {
    Path out = tmp.resolve("capture-stage");
    List<String> command = new ArrayList<>(command(out));
    command.addAll(List.of("--capture-vectors", "3"));
    JobProcess.Finished stopped = interruptWhileWriting("_tmp-worker-0000\\.bin-.*", command);
    assertOneLine(stopped, 143, "has no checkpoint", "start it again with --overwrite");
    List<String> files = Cli.files(out);
    assertTrue(files.containsAll(List.of("config.json", "metrics/iterations.jsonl", "metrics/epochs.jsonl",
        "captures/round-000003/worker-0000.bin")), files.toString());
    assertTrue(files.stream().noneMatch(f -> f.startsWith("checkpoints/") || f.equals("_SUCCESS")
        || f.startsWith("model") || f.startsWith("_tmp-")), files.toString());
    assertEquals(3, Files.readAllLines(out.resolve("metrics/iterations.jsonl")).size(),
        "rounds 0-2, the captured round complete");

    command.add("--overwrite");
    assertFinished(rerun(command), out);
  }

  @Test
  void whileACheckpointsTemporaryFileExistsTheCheckpointCompletesAndResumeContinues() throws Exception {
    Path out = tmp.resolve("checkpoint-stage");
    JobProcess.Finished stopped = interruptWhileWriting("_tmp-checkpoint-0000000005\\.bin-.*", command(out));
    assertOneLine(stopped, 143, "keeps 1 checkpoint(s), the newest of iteration 5", "continue it with --resume");
    List<String> files = Cli.files(out);
    List<String> expected = new ArrayList<>(List.of("checkpoints/checkpoint-0000000005.bin", "config.json",
        "metrics/epochs.jsonl", "metrics/iterations.jsonl"));
    expected.addAll(files.stream().filter(f -> f.startsWith("logs/")).toList());
    expected.add(RunManifest.FILE);
    assertEquals(expected.stream().sorted().toList(), files, "the run up to its checkpoint, nothing half written");

    Matcher advice = RESUME.matcher(stopped.err().strip());
    assertTrue(advice.find(), stopped.err());
    assertFinished(rerun(List.of("--resume", advice.group(1))), out);
    Set<String> rounds = new HashSet<>();
    for (String line : Files.readAllLines(out.resolve("metrics/iterations.jsonl"))) {
      assertTrue(rounds.add(line.replaceAll(".*\"iteration\":(\\d+).*", "$1")), "each round once: " + line);
    }
    assertEquals(20, rounds.size());
  }

  @Test
  void whileTheModelTheReportOrSuccessIsWrittenTheRunFinishes() throws Exception {
    for (String file : List.of("model\\.json", "_tmp-report\\.png-.*", "_SUCCESS")) {
      Path out = tmp.resolve("final-" + file.replaceAll("\\W", ""));
      JobProcess.Finished finished = interruptWhileWriting(file, command(out));
      assertEquals(0, finished.code(), file + ": " + finished.err());
      assertEquals(1, finished.errLines().size(), finished.err());
      assertTrue(finished.err().startsWith("bitopk: interrupted by SIGTERM after the last round; the run finished")
          && finished.err().contains("(_SUCCESS)"), finished.err());
      assertTrue(finished.out().startsWith("bitopk run "), "the summary: " + finished.out());
      List<String> files = Cli.files(out);
      assertTrue(files.containsAll(List.of("_SUCCESS", "config.json", "model.json", "report.png", "report.html",
          "summary.txt")), file + ": " + files);
      assertTrue(files.stream().noneMatch(f -> f.startsWith("_tmp-")), file + ": " + files);
      assertTrue(Files.size(out.resolve("report.png")) > 0, "a complete report");
    }
  }

  // ---- helpers

  /** A 20-round run with a checkpoint every 5 rounds into {@code out} on the pausing file system. */
  private static List<String> command(Path out) {
    return List.of("--dataset", "counterexample", "--epochs", "20", "--checkpoint-every", "5", "--master",
        "local[2]", "--output", PausingFileSystem.SCHEME + "://" + out);
  }

  /** Starts the job held at the first file named like {@code fileRegex}, sends SIGTERM there, awaits its end. */
  private static JobProcess.Finished interruptWhileWriting(String fileRegex, List<String> command)
      throws IOException, InterruptedException {
    JobProcess job = PausingFileSystem.hold(tmp, fileRegex, command).job();
    job.signal("TERM");
    return job.await(TIMEOUT);
  }

  /** The advised command in a new job (the pausing file system registered, never holding). */
  private static JobProcess.Finished rerun(List<String> command) throws IOException, InterruptedException {
    return JobProcess.start(tmp.resolve("streams"), List.of(PausingFileSystem.registered()), command).await(TIMEOUT);
  }

  private static void assertOneLine(JobProcess.Finished job, int code, String... named) {
    assertEquals(code, job.code(), job.err());
    assertEquals(1, job.errLines().size(), "one line: " + job.err());
    assertTrue(job.err().startsWith("bitopk: interrupted by SIGTERM; "), job.err());
    for (String n : named) {
      assertTrue(job.err().contains(n), n + " in: " + job.err());
    }
    assertEquals("", job.out(), "no summary for a run that did not finish");
  }

  private static void assertFinished(JobProcess.Finished job, Path out) throws IOException {
    assertEquals(0, job.code(), job.err());
    assertEquals("", job.err(), "no line at all");
    assertTrue(Files.exists(out.resolve("_SUCCESS")), Cli.files(out).toString());
    assertFalse(Files.exists(out.resolve("_bitopk.lock")), "the lease is released");
  }
}
