package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.engine.DriverState;
import org.bitopk.job.engine.IterationRecord;
import org.bitopk.job.engine.RunListener;
import org.bitopk.job.output.RunLease;
import org.bitopk.job.output.RunManifest;
import org.bitopk.job.run.TrainingRun;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An output directory has one owner, and a run is never silently replaced: two runs started together into one directory, a resume while the run is going,
 * a new run into a killed run's directory, --overwrite, checkpoints of another run, stale leases.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OutputOwnershipTest {
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
  void twoRunsStartedTogetherIntoOneDirectoryLeaveTheWinnersRunAlone() throws Exception {
    Path out = tmp.resolve("together");
    CyclicBarrier barrier = new CyclicBarrier(2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Future<Cli.Outcome>> runs = new ArrayList<>();
    try {
      for (String seed : List.of("1", "2")) {
        runs.add(pool.submit(() -> {
          barrier.await();
          return Cli.run(sc, "--dataset", "counterexample", "--epochs", "80", "--seed", seed,
              "--output", out.toString(), "--quiet");
        }));
      }
      Cli.Outcome first = runs.get(0).get(5, TimeUnit.MINUTES);
      Cli.Outcome second = runs.get(1).get(5, TimeUnit.MINUTES);
      assertEquals(1, (first.code() == 0 ? 1 : 0) + (second.code() == 0 ? 1 : 0),
          "exactly one run succeeds: " + first + " / " + second);
      Cli.Outcome winner = first.code() == 0 ? first : second;
      Cli.Outcome loser = first.code() == 0 ? second : first;
      String runId = winner.out().lines().findFirst().orElseThrow().replace("bitopk run ", "");
      loser.failsWithOneLine(2, "--output", "is in use by run " + runId);

      assertOneRun(out, runId, 80);
      assertTrue(Files.exists(out.resolve("_SUCCESS")));
      assertFalse(Files.exists(out.resolve(RunLease.FILE)), "the lease is released");
      // the model is the one whose metrics are there: the last evaluation is F at the final model
      JsonNode model = JSON.readTree(out.resolve("model.json").toFile());
      List<JsonNode> epochs = lines(out.resolve("metrics/epochs.jsonl"));
      assertEquals(model.get("objective").asDouble(), epochs.get(epochs.size() - 1).get("test_loss").asDouble(), 0.0);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aResumeWhileTheRunIsGoingIsRefused() throws Exception {
    Path out = tmp.resolve("going");
    CountDownLatch reached = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    RunListener pause = new RunListener() {
      @Override
      public void onIteration(IterationRecord record, DriverState state) {
        if (state.iteration() == 15) {
          reached.countDown();
          try {
            goOn.await(2, TimeUnit.MINUTES);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
    };
    TrainingConfig config = TrainingConfig.builder().dataset("counterexample").epochs(40).checkpointEvery(5)
        .output(out.toString()).quiet(true).build();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<TrainingRun.Result> running = pool.submit(() -> TrainingRun.execute(sc, config, false, List.of(pause)));
      assertTrue(reached.await(2, TimeUnit.MINUTES), "the run reaches iteration 15");
      Map<String, byte[]> before = Cli.snapshot(out.resolve("checkpoints"));

      Cli.run(sc, "--resume", out.toString(), "--quiet").failsWithOneLine(2, "--resume", "is in use by run",
          RunLease.hostName());
      Cli.run(sc, "--dataset", "counterexample", "--epochs", "5", "--output", out.toString(), "--overwrite",
          "--quiet").failsWithOneLine(2, "--output", "is in use by run");
      Cli.assertSame(before, Cli.snapshot(out.resolve("checkpoints")), "the running run's checkpoints");

      goOn.countDown();
      TrainingRun.Result result = running.get(5, TimeUnit.MINUTES);
      assertOneRun(out, result.runId(), 40);
    } finally {
      goOn.countDown();
      pool.shutdownNow();
    }
  }

  @Test
  void anUnfinishedRunIsNeverSilentlyReplaced() throws IOException {
    Path killed = crashedRun("killed", 25);   // checkpoints of iterations 10 and 20
    byte[] oldCheckpoint = Files.readAllBytes(killed.resolve("checkpoints/checkpoint-0000000020.bin"));
    Map<String, byte[]> before = Cli.snapshot(killed);

    List<String> fresh = List.of("--dataset", "counterexample", "--epochs", "30", "--output", killed.toString(),
        "--quiet");
    Cli.run(sc, fresh).failsWithOneLine(2, "--output", killed.getFileName().toString(), "unfinished run",
        "2 checkpoint(s)", "--resume", "--overwrite");
    Cli.assertSame(before, Cli.snapshot(killed), "a refused run leaves the directory as it was");

    List<String> overwrite = new ArrayList<>(fresh);
    overwrite.add("--overwrite");
    Cli.Outcome replaced = Cli.run(sc, overwrite).succeeds();
    String newRun = replaced.out().lines().findFirst().orElseThrow().replace("bitopk run ", "");
    assertFalse(Files.exists(killed.resolve("checkpoints")), "--overwrite removes the old run's checkpoints");
    assertOneRun(killed, newRun, 30);

    // Should a checkpoint of another run ever lie beside this run's files, --resume does not continue from it.
    Files.delete(killed.resolve("_SUCCESS"));
    Files.createDirectories(killed.resolve("checkpoints"));
    Files.write(killed.resolve("checkpoints/checkpoint-0000000020.bin"), oldCheckpoint);
    Cli.run(sc, "--resume", killed.toString(), "--quiet").failsWithOneLine(2, "--resume",
        "entries bitopk did not write", "checkpoints/");   // the run's manifest does not name it
    Files.delete(killed.resolve(RunManifest.FILE));            // a run written before manifests existed
    Cli.run(sc, "--resume", killed.toString(), "--quiet").failsWithOneLine(2, "--resume",
        "no intact checkpoint of run " + newRun, "another run");
  }

  @Test
  void anUnfinishedRunWithoutCheckpointsAndADirectoryThatIsNotARunAreRefused() throws IOException {
    Path unfinished = tmp.resolve("no-checkpoints");
    TrainingConfig config = TrainingConfig.builder().dataset("counterexample").epochs(30)
        .output(unfinished.toString()).quiet(true).build();
    assertThrows(IllegalStateException.class, () -> TrainingRun.execute(sc, config, false, List.of(crashAt(12))));
    Map<String, byte[]> before = Cli.snapshot(unfinished);
    Cli.run(sc, "--dataset", "counterexample", "--output", unfinished.toString(), "--quiet")
        .failsWithOneLine(2, "unfinished run without checkpoints", "cannot be resumed", "--overwrite");
    Cli.assertSame(before, Cli.snapshot(unfinished), "left as it was");

    Path notARun = Files.createDirectories(tmp.resolve("my-notes"));
    Files.writeString(notARun.resolve("notes.txt"), "mine");
    for (List<String> extra : List.of(List.<String>of(), List.of("--overwrite"))) {
      List<String> args = new ArrayList<>(List.of("--dataset", "counterexample", "--output", notARun.toString(),
          "--quiet"));
      args.addAll(extra);
      Cli.run(sc, args).failsWithOneLine(2, "is not empty and holds no run", "notes.txt");
      assertEquals(List.of("notes.txt"), Cli.files(notARun), "nothing written, nothing removed");
    }
  }

  @Test
  void aStaleLeaseIsTakenOverWithOneWarningALiveOneIsNot() throws Exception {
    // the holder's process on this host is gone (killed)
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Path killed = crashedRun("dead-holder", 25);
    writeLease(killed, "old-run", RunLease.hostName(), gone.pid(), Instant.now());
    Cli.Outcome resumed = Cli.run(sc, "--resume", killed.toString(), "--quiet");
    assertEquals(0, resumed.code(), resumed.err());
    assertEquals(1, resumed.errLines().size(), resumed.err());
    assertTrue(resumed.err().startsWith("bitopk: warning: taking over the stale lease of run old-run")
        && resumed.err().contains("its process " + gone.pid() + " is no longer running on this host"), resumed.err());
    assertFalse(Files.exists(killed.resolve(RunLease.FILE)));

    // a holder on another host that stopped refreshing an hour ago
    Path abandoned = crashedRun("abandoned", 25);
    writeLease(abandoned, "far-run", "elsewhere.example", 4242, Instant.now().minusSeconds(3600));
    Files.setLastModifiedTime(abandoned.resolve(RunLease.FILE), FileTime.from(Instant.now().minusSeconds(3600)));
    Cli.Outcome taken = Cli.run(sc, "--resume", abandoned.toString(), "--quiet");
    assertEquals(0, taken.code(), taken.err());
    assertEquals(1, taken.errLines().size(), taken.err());
    assertTrue(taken.err().contains("stale lease of run far-run") && taken.err().contains("last refreshed"),
        taken.err());

    // a holder on another host that refreshed just now is alive: refused, nothing touched
    Path busy = crashedRun("busy", 25);
    writeLease(busy, "live-run", "elsewhere.example", 4242, Instant.now());
    Map<String, byte[]> before = Cli.snapshot(busy);
    Cli.Outcome refused = Cli.run(sc, "--resume", busy.toString(), "--quiet").failsWithOneLine(2,
        "is in use by run live-run", "elsewhere.example", "pid 4242");
    assertTrue(refused.err().startsWith("bitopk: --resume ") && refused.err().contains(busy.toString()),
        "the flag that named the directory: " + refused.err());
    Cli.assertSame(before, Cli.snapshot(busy), "a live lease's directory");
  }

  // ---- helpers

  /** A run that dies (as a driver would) after {@code rounds} rounds, with checkpoints every 10. */
  Path crashedRun(String name, int rounds) {
    Path out = tmp.resolve(name);
    TrainingConfig config = TrainingConfig.builder().dataset("counterexample").epochs(40).checkpointEvery(10)
        .output(out.toString()).quiet(true).build();
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> TrainingRun.execute(sc, config, false, List.of(crashAt(rounds))));
    assertEquals("simulated driver crash", e.getMessage());
    return out;
  }

  static RunListener crashAt(int rounds) {
    return new RunListener() {
      @Override
      public void onIteration(IterationRecord record, DriverState state) {
        if (state.iteration() == rounds) {
          throw new IllegalStateException("simulated driver crash");
        }
      }
    };
  }

  static void writeLease(Path dir, String run, String host, long pid, Instant refreshed) throws IOException {
    ObjectNode lease = JSON.createObjectNode().put("run", run).put("host", host).put("pid", pid)
        .put("process_started", "").put("started", refreshed.toString()).put("refreshed", refreshed.toString())
        .put("token", "someone-else");
    Files.write(dir.resolve(RunLease.FILE), JSON.writeValueAsBytes(lease));
  }

  /** config.json, every metric line and summary.txt belong to {@code runId}; every round is there once. */
  static void assertOneRun(Path dir, String runId, int rounds) throws IOException {
    assertEquals(runId, JSON.readTree(dir.resolve("config.json").toFile()).get("run").asText(), "config.json");
    List<JsonNode> iterations = lines(dir.resolve("metrics/iterations.jsonl"));
    assertEquals(rounds, iterations.size(), "one line per round");
    Set<Long> seen = new HashSet<>();
    for (JsonNode line : iterations) {
      assertEquals(runId, line.get("run").asText(), "iteration line " + line);
      assertTrue(seen.add(line.get("iteration").asLong()), "round " + line.get("iteration") + " once");
    }
    for (JsonNode line : lines(dir.resolve("metrics/epochs.jsonl"))) {
      assertEquals(runId, line.get("run").asText(), "epoch line " + line);
    }
    assertEquals("bitopk run " + runId, Files.readAllLines(dir.resolve("summary.txt")).get(0));
  }

  static List<JsonNode> lines(Path file) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      assertFalse(line.isBlank(), file + " holds no blank line");
      out.add(JSON.readTree(line));
    }
    return out;
  }
}
