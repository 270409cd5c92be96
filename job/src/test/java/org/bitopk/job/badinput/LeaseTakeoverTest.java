package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.bitopk.job.ExitCode;
import org.bitopk.job.output.RunLease;
import org.bitopk.job.output.RunManifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run whose directory is taken over by another run notices it at its next write, not at the next periodic
 * refresh of its lease: held inside the write of its third checkpoint while another run takes the lease, it
 * completes that write and then neither prunes the oldest checkpoint nor writes another line, checkpoint or
 * final file. One line, exit 1; the other run's lease stays.
 */
class LeaseTakeoverTest {
  @TempDir
  Path tmp;

  @Test
  void aTakenOverRunWritesNothingMore() throws Exception {
    Path out = tmp.resolve("taken");
    PausingFileSystem.Held held = PausingFileSystem.hold(tmp, "_tmp-checkpoint-0000000015\\.bin-.*",
        List.of("--dataset", "counterexample", "--epochs", "40", "--checkpoint-every", "5", "--master", "local[2]",
            "--output", PausingFileSystem.SCHEME + "://" + out));
    OutputOwnershipTest.writeLease(out, "other-run", "elsewhere.example", 4242, Instant.now());
    byte[] otherLease = Files.readAllBytes(out.resolve(RunLease.FILE));
    held.release();
    JobProcess.Finished finished = held.job().await(Duration.ofMinutes(3));

    assertEquals(ExitCode.FAILURE, finished.code(), finished.err());
    assertEquals(1, finished.errLines().size(), finished.err());
    assertTrue(finished.err().startsWith("bitopk: ") && finished.err().contains("was taken over by run other-run")
        && finished.err().contains("this run stops"), finished.err());
    List<String> files = Cli.files(out);
    List<String> expected = new ArrayList<>(List.of(RunLease.FILE, "checkpoints/checkpoint-0000000005.bin",
        "checkpoints/checkpoint-0000000010.bin", "checkpoints/checkpoint-0000000015.bin", "config.json",
        "metrics/epochs.jsonl", "metrics/iterations.jsonl", RunManifest.FILE));
    assertEquals(expected.stream().sorted().toList(), files, "the checkpoint under way completed, the oldest "
        + "not pruned, nothing written after the takeover (not even the log, kept on this host)");
    assertEquals(15, Files.readAllLines(out.resolve("metrics/iterations.jsonl")).size(), "rounds 0-14 only");
    assertTrue(java.util.Arrays.equals(otherLease, Files.readAllBytes(out.resolve(RunLease.FILE))),
        "the other run's lease is left as it is");
  }
}
