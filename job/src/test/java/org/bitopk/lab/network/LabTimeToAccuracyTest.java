package org.bitopk.lab.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.bitopk.lab.baseline.TimeToAccuracyCommandTest;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Time to accuracy on the network lab in miniature: {@code submit/netlab.sh} with 2 worker hosts runs {@code
 * time-to-accuracy --rates 20mbit,none} for PyTorch DDP's dense all-reduce and bitopk bidirectional, a few rounds
 * each, at the learning rates of an {@code lr-choice.json}. One row per system and rate in the order run; the lab's
 * timed transfer finds each rate (20 Mbit/s within 15 %, unshaped faster); at 20 Mbit/s a dense DDP round takes at
 * least the time a rank's link needs for what the ring all-reduce sends from it (the trace's bytes per round over
 * the P ranks, at the rate), and so does its communication term, and it is longer than unshaped; every
 * row has its round split; each row says its link and learning rate; every system warms up, on the links unshaped,
 * before the first is measured; one chart per rate; nothing of the lab is left.
 */
class LabTimeToAccuracyTest {
  private static final int WORKERS = 2;
  private static final double SHAPED_MBIT = 20;

  @TempDir
  Path tmp;

  @Test
  void eachSystemRunsAtEachRateAndTheSlowLinkCostsTheDenseRoundsTheirBytes() throws Exception {
    String missing = NetlabRun.missingPrivileges();
    Assumptions.assumeTrue(missing.isEmpty(), missing);

    Path choice = tmp.resolve("lr-choice.json");
    Files.writeString(choice, "{\"target\":0.85,\"maxRounds\":100,\"systems\":{"
        + "\"ddp-dense\":{\"lr\":0.1,\"grid\":[{\"lr\":0.1,\"roundsToTarget\":-1,\"rounds\":100,\"finalAccuracy\":0.8}]},"
        + "\"bitopk-bidirectional\":{\"lr\":0.2,\"grid\":[{\"lr\":0.2,\"roundsToTarget\":90,\"rounds\":90,"
        + "\"finalAccuracy\":0.86}]}}}");
    Path lab = tmp.resolve("lab");
    Path out = lab.resolve("tta");
    Path log = tmp.resolve("netlab.log");
    NetlabRun netlab = NetlabRun.start(log, List.of("--hosts", "2", "--time-limit", "400", "--lab-dir",
        lab.toString(), "--",
        "time-to-accuracy", "--rates", "20mbit,none", "--systems", "ddp-dense,bitopk-bidirectional",
        "--lr-choice", choice.toString(), "--workers", "" + WORKERS, "--batch-size", "32", "--eval-every", "5",
        // each evaluation costs the whole test set twice for DDP (the rank, then the driver): a round at 20 Mbit/s
        // takes longer than 0.3 s, so dense DDP there stops after the first 5 rounds; the others need only a few
        "--max-seconds", "1.5", "--max-seconds-of", "ddp-dense@none=0.02,bitopk-bidirectional=0.2",
        "--warm-up-rounds", "3", "--epochs", "1", "--out", out.toString()));
    String prefix = netlab.prefix();
    String output = netlab.await();
    System.out.println(output);
    assertEquals(0, netlab.exitValue(), output);

    // both systems warm up, on the links unshaped, before the first is measured
    List<String> lines = output.lines().toList();
    int warmUpLinks = lines.indexOf("links: none for the warm-up, timing a transfer");
    int firstMeasured = lines.indexOf(lines.stream().filter(l -> l.startsWith("[1/4] ")).findFirst().orElse("?"));
    assertTrue(warmUpLinks >= 0 && firstMeasured > warmUpLinks, output);
    assertEquals(List.of("[warm-up 1/2] ddp-dense: 3 rounds, not measured",
        "[warm-up 2/2] bitopk-bidirectional: 3 rounds, not measured"), lines.subList(warmUpLinks, firstMeasured).stream()
        .filter(l -> l.startsWith("[warm-up ")).toList(), output);

    List<Map<String, String>> rows = TimeToAccuracyCommandTest.table(out.resolve("time-to-accuracy.csv"));
    assertEquals(List.of("ddp-dense@20mbit", "bitopk-bidirectional@20mbit", "ddp-dense@none",
        "bitopk-bidirectional@none"), rows.stream().map(r -> r.get("system")).toList(), output);
    for (Map<String, String> row : rows) {
      String rate = row.get("system").substring(row.get("system").indexOf('@') + 1);
      String lr = row.get("system").startsWith("ddp-dense") ? "0.1" : "0.2";
      assertTrue(row.get("details").startsWith("links " + rate + " (a timed transfer: ")
          && row.get("details").contains("lr " + lr + " chosen by rounds to 85.0 %"), row.toString());
      for (String term : List.of("ms_compute", "ms_communication", "ms_rest")) {
        assertTrue(Double.parseDouble(row.get(term)) >= 0, row.toString());
      }
      assertTrue(Files.exists(out.resolve("time-to-accuracy@" + rate + ".png")), rate);
    }

    List<Map<String, String>> links = TimeToAccuracyCommandTest.table(out.resolve("links.csv"));
    assertEquals(List.of("20mbit", "none"), links.stream().map(r -> r.get("rate")).toList());
    double shaped = Double.parseDouble(links.get(0).get("probe_mbit_per_second"));
    double unshaped = Double.parseDouble(links.get(1).get("probe_mbit_per_second"));
    assertTrue(Math.abs(shaped - SHAPED_MBIT) <= 0.15 * SHAPED_MBIT, "timed transfer at " + shaped + " Mbit/s");
    assertTrue(unshaped > 5 * SHAPED_MBIT, "unshaped transfer at " + unshaped + " Mbit/s");
    assertEquals("2", links.get(0).get("executors"));

    double slow = secondsPerRound(out, "ddp-dense@20mbit");
    double fast = secondsPerRound(out, "ddp-dense@none");
    // one rank per host: each host's link carries what the ring sends from its rank, the P ranks' bytes over P
    double floor = bytesPerRound(out, "ddp-dense@20mbit") / WORKERS * 8 / (SHAPED_MBIT * 1e6);
    assertTrue(slow >= 0.9 * floor, "a dense DDP round at 20 Mbit/s took " + slow + " s, less than the " + floor
        + " s a rank's link needs for what the ring all-reduce sends from it");
    Map<String, String> ddp = rows.get(0);
    double communication = Double.parseDouble(ddp.get("ms_communication")) / 1000;
    assertTrue(communication >= 0.9 * floor, "dense DDP's communication at 20 Mbit/s: " + communication
        + " s a round, less than the link's " + floor + " s for its bytes");
    assertTrue(slow > 2 * fast, "a dense DDP round took " + slow + " s at 20 Mbit/s and " + fast + " s unshaped");

    assertEquals(List.of(), NetlabRun.leftovers(prefix), "left behind by " + prefix + "*");
  }

  private static double secondsPerRound(Path out, String system) throws IOException {
    List<Map<String, String>> trace = TimeToAccuracyCommandTest.table(out.resolve("trace-" + system + ".csv"));
    Map<String, String> last = trace.get(trace.size() - 1);
    long rounds = Long.parseLong(last.get("rounds"));
    assertTrue(rounds >= 1, system + " ran no round");
    return Double.parseDouble(last.get("seconds")) / rounds;
  }

  /** The system's bytes per round, all ranks together, as its trace counts them to its last evaluation. */
  private static double bytesPerRound(Path out, String system) throws IOException {
    List<Map<String, String>> trace = TimeToAccuracyCommandTest.table(out.resolve("trace-" + system + ".csv"));
    Map<String, String> last = trace.get(trace.size() - 1);
    return Double.parseDouble(last.get("bytes")) / Long.parseLong(last.get("rounds"));
  }
}
