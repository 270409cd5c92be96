package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.bitopk.job.ExitCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM and SIGINT during a grid ({@code experiment}), in the job's own JVM: the grid stops between two rounds,
 * with one line saying how far it got and that the same command continues, and exit code 143 or 130; no line of
 * Spark's about the cancelled job. The advice is followed literally: the same command resumes the interrupted
 * point from its checkpoint, skips the finished ones, and the third call completes the grid.
 */
class GridInterruptionTest {
  private static final Duration TIMEOUT = Duration.ofMinutes(3);

  @TempDir
  static Path tmp;

  @Test
  void aSignalStopsTheGridWithOneLineAndTheSameCommandContinues() throws Exception {
    Path grid = Files.writeString(tmp.resolve("grid.json"), "{\"name\": \"signals\", \"base\": {\"dataset\": "
        + "\"counterexample\", \"checkpoint-every\": 5}, \"points\": [{\"name\": \"first\", \"epochs\": 5}, "
        + "{\"name\": \"second\", \"epochs\": 150}, {\"name\": \"third\", \"epochs\": 150}]}");
    Path out = tmp.resolve("experiment");
    List<String> command = List.of("experiment", "--grid", grid.toString(), "--out", out.toString(), "--master",
        "local[2]", "--quiet");

    JobProcess.Finished terminated = signalAtCheckpoint(command, out.resolve("second"), "TERM");
    assertEquals(ExitCode.TERMINATED, terminated.code(), terminated.err());
    assertEquals(List.of("bitopk: interrupted by SIGTERM; 1 of 3 points of " + out + " finished, point second keeps "
        + checkpoints(out.resolve("second")) + " checkpoint(s): run the same command again to continue (finished "
        + "points are skipped, those with a checkpoint resumed, the others started over)"), terminated.errLines());
    assertTrue(Files.exists(out.resolve("first/_SUCCESS")));
    assertFalse(Files.exists(out.resolve("second/_SUCCESS")));
    assertFalse(Files.exists(out.resolve("third")), "the third point never started");
    assertFalse(Files.exists(out.resolve("results.md")), "no results of an unfinished grid");

    JobProcess.Finished interrupted = signalAtCheckpoint(command, out.resolve("third"), "INT");
    assertEquals(ExitCode.INTERRUPTED, interrupted.code(), interrupted.err());
    assertTrue(interrupted.out().contains("[1/3] first: finished earlier, skipped")
        && interrupted.out().contains("[2/3] second: resuming from its newest checkpoint"), interrupted.out());
    assertEquals(List.of("bitopk: interrupted by SIGINT; 2 of 3 points of " + out + " finished, point third keeps "
        + checkpoints(out.resolve("third")) + " checkpoint(s): run the same command again to continue (finished "
        + "points are skipped, those with a checkpoint resumed, the others started over)"), interrupted.errLines());
    assertTrue(Files.exists(out.resolve("second/_SUCCESS")));
    assertFalse(Files.exists(out.resolve("third/_SUCCESS")));

    JobProcess.Finished completed = JobProcess.run(tmp.resolve("streams"), command, TIMEOUT);
    assertEquals(0, completed.code(), completed.err());
    assertEquals("", completed.err());
    assertTrue(completed.out().contains("[2/3] second: finished earlier, skipped")
        && completed.out().contains("[3/3] third: resuming from its newest checkpoint")
        && completed.out().contains("3 of 3 points finished"), completed.out());
    assertTrue(Files.exists(out.resolve("third/_SUCCESS")) && Files.exists(out.resolve("results.md")));
  }

  /** Starts {@code command}, waits until {@code point} holds a checkpoint, sends {@code signal}, waits for the end. */
  private static JobProcess.Finished signalAtCheckpoint(List<String> command, Path point, String signal)
      throws Exception {
    JobProcess job = JobProcess.start(tmp.resolve("streams"), command);
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (checkpoints(point) == 0 && job.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertTrue(checkpoints(point) > 0, point + " reached a checkpoint");
    job.signal(signal);
    return job.await(TIMEOUT);
  }

  private static long checkpoints(Path point) throws java.io.IOException {
    Path dir = point.resolve("checkpoints");
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (var files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().matches("checkpoint-\\d+\\.bin")).count();
    }
  }
}
