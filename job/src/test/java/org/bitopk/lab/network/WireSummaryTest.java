package org.bitopk.lab.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * netlab.json from counter readings and metrics written by hand, every figure checked against the arithmetic
 * done here: a driver host and two worker hosts, three readings taken after rounds 1, 2 and 4 of 4.
 */
class WireSummaryTest {
  @TempDir
  Path lab;

  /** One reading in the format the lab's sampler writes ({@code ip -s -j link show}, abridged). */
  private static String reading(double t, long rounds, long[]... ports) {
    StringBuilder links = new StringBuilder();
    for (int i = 0; i < ports.length; i++) {
      links.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT,
          "{\"ifname\":\"bk9-p%d\",\"stats64\":{\"rx\":{\"bytes\":%d,\"packets\":%d},\"tx\":{\"bytes\":%d,"
              + "\"packets\":%d}}}", i, ports[i][0], ports[i][0] / 1000, ports[i][1], ports[i][1] / 1000));
    }
    return String.format(Locale.ROOT, "{\"t\":%.3f,\"rounds\":%d,\"links\":[%s]}", t, rounds, links);
  }

  private static String iteration(long up, long down, long delivered) {
    return String.format(Locale.ROOT, "{\"workers\":2,\"up_bytes\":%d,\"down_bytes\":%d,\"down_bytes_delivered\":%d}",
        up, down, delivered);
  }

  @Test
  void measuredBytesAgainstTheJobsPerHostWholeRunAndPerRound() throws IOException {
    Files.writeString(lab.resolve("hosts.tsv"), "0\tdriver\tbk9-h0\t198.18.0.1\tbk9-p0\t100mbit\t0ms\t0\n"
        + "1\tworker\tbk9-h1\t198.18.0.2\tbk9-p1\t100mbit\t0ms\t0\n"
        + "2\tworker\tbk9-h2\t198.18.0.3\tbk9-p2\t100mbit\t0ms\t0.5\n");
    Path counters = Files.createDirectories(lab.resolve("counters"));
    // port {rx = what the host sent, tx = what it received}
    Files.writeString(counters.resolve("before.json"), reading(100, -1, new long[] {1000, 2000},
        new long[] {500, 600}, new long[] {700, 800}));
    Files.writeString(counters.resolve("after.json"), reading(110, 4, new long[] {91_000, 32_000},
        new long[] {20_500, 45_600}, new long[] {16_700, 50_800}));
    Files.writeString(counters.resolve("samples.jsonl"), String.join("\n",
        reading(101, 1, new long[] {31_000, 7_000}, new long[] {3_500, 15_600}, new long[] {2_700, 16_800}),
        reading(103, 2, new long[] {41_000, 12_000}, new long[] {6_500, 20_600}, new long[] {5_700, 21_800}),
        reading(107, 4, new long[] {61_000, 22_000}, new long[] {12_500, 30_600}, new long[] {11_700, 31_800}),
        "{\"t\":108,\"rounds\":4,\"li") + "\n");
    Path run = Files.createDirectories(lab.resolve("run/metrics"));
    Files.writeString(run.resolve("iterations.jsonl"), String.join("\n", iteration(4000, 3000, 6000),
        iteration(3000, 2000, 4000), iteration(2000, 1500, 3000), iteration(1000, 1000, 2000)) + "\n");

    JobAccounting job = JobAccounting.under(lab.resolve("run"));
    assertEquals(new JobAccounting(1, 4, 2, 10_000, 7_500, 15_000), job);
    JsonNode summary = WireSummary.summarize(lab, "train", lab.resolve("run").toString(), 0, job);

    assertEquals(10.0, summary.path("seconds").asDouble(), 1e-9);
    JsonNode driver = summary.path("hosts").get(0);
    assertEquals(90_000, driver.path("sent_bytes").asLong());
    assertEquals(30_000, driver.path("received_bytes").asLong());
    assertEquals(15_000, driver.path("job_sent_bytes").asLong());       // down_bytes_delivered
    assertEquals(10_000, driver.path("job_received_bytes").asLong());   // up_bytes
    assertEquals(75_000, driver.path("difference_sent_bytes").asLong());
    JsonNode worker = summary.path("hosts").get(2);
    assertEquals(16_000, worker.path("sent_bytes").asLong());
    assertEquals(50_000, worker.path("received_bytes").asLong());
    assertEquals(5_000, worker.path("job_sent_bytes").asLong());        // half the uplink
    assertEquals(7_500, worker.path("job_received_bytes").asLong());    // half the delivered downlink
    assertEquals(0.5, worker.path("loss_percent").asDouble());

    JsonNode cluster = summary.path("cluster");
    assertEquals(90_000 + 20_000 + 16_000, cluster.path("wire_bytes").asLong());
    assertEquals(25_000, cluster.path("job_bytes").asLong());
    assertEquals(126_000 / 25_000.0, cluster.path("wire_over_job").asDouble(), 1e-12);
    assertEquals(126_000 / 4.0, cluster.path("wire_bytes_per_round").asDouble(), 1e-9);
    assertFalse(summary.path("job").path("downlink_counted_per_replica").asBoolean());

    // Rounds 2..4 lie between the readings at t = 101 (1 done) and t = 107 (4 done): the job's rounds 1, 2, 3.
    JsonNode rounds = summary.path("rounds");
    assertEquals(1, rounds.path("from_round").asLong());
    assertEquals(4, rounds.path("to_round").asLong());
    assertEquals(6.0, rounds.path("seconds").asDouble(), 1e-9);
    long wire = (61_000 - 31_000) + (12_500 - 3_500) + (11_700 - 2_700);
    long counted = (3000 + 4000) + (2000 + 3000) + (1000 + 2000);
    assertEquals(wire / 3.0, rounds.path("wire_bytes_per_round").asDouble(), 1e-9);
    assertEquals(counted / 3.0, rounds.path("job_bytes_per_round").asDouble(), 1e-9);
    assertEquals((wire - counted) / 3.0, rounds.path("difference_bytes_per_round").asDouble(), 1e-9);
    assertEquals((30_600 - 15_600) / 3.0, rounds.path("hosts").get(1).path("received_bytes_per_round").asDouble(),
        1e-9);

    JsonNode timeline = summary.path("timeline");
    assertEquals(3, timeline.path("seconds").size(), "the torn last line is left out");
    assertEquals(7.0, timeline.path("seconds").get(2).asDouble(), 1e-9);
    assertEquals(2, timeline.path("rounds").get(1).asLong());
    assertEquals(60_000, timeline.path("hosts").get(0).path("sent_bytes").get(2).asLong());
    assertTrue(summary.path("probe").isMissingNode());
  }
}
