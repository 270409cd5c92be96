package org.bitopk.lab.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The partition table from lab directories written by hand in the formats the lab and the job write: an
 * undisturbed run and a 30 s partition of host 2 from 10 s after the start, whose driver log says when the
 * executor was lost. Every figure is checked against the arithmetic done here.
 */
class PartitionTableTest {
  private static final double START = 1_800_000_000.25;

  @TempDir
  Path dir;

  /** netlab.json with samples every second: rounds done and host 2's bytes sent at each. */
  private static String netlab(double[] seconds, long[] rounds, long[] hostTwoSent, double down, double up) {
    StringBuilder s = new StringBuilder("{\"timeline\":{\"seconds\":[");
    for (int i = 0; i < seconds.length; i++) {
      s.append(i == 0 ? "" : ",").append(seconds[i]);
    }
    s.append("],\"rounds\":[");
    for (int i = 0; i < rounds.length; i++) {
      s.append(i == 0 ? "" : ",").append(rounds[i]);
    }
    s.append("],\"hosts\":[");
    for (int h = 0; h <= 2; h++) {
      s.append(h == 0 ? "" : ",").append("{\"host\":").append(h).append(",\"sent_bytes\":[");
      for (int i = 0; i < hostTwoSent.length; i++) {
        s.append(i == 0 ? "" : ",").append(h == 2 ? hostTwoSent[i] : 0);
      }
      s.append("],\"received_bytes\":[]}");
    }
    s.append("]}");
    if (down >= 0) {
      s.append(String.format(Locale.ROOT, ",\"faults\":[{\"seconds\":%.3f,\"host\":2,\"event\":\"link down\"},"
          + "{\"seconds\":%.3f,\"host\":2,\"event\":\"link up\"}]", down, up));
    }
    return s.append("}").toString();
  }

  private Path lab(String name, String netlab, double[] roundSeconds, int[] lost, double accuracy) throws IOException {
    Path lab = Files.createDirectories(dir.resolve(name));
    Files.writeString(lab.resolve("netlab.json"), netlab);
    Files.writeString(lab.resolve("hosts.tsv"), "0\tdriver\tbk9-h0\t198.18.0.1\tbk9-p0\t1gbit\t0ms\t0\n"
        + "1\tworker\tbk9-h1\t198.18.0.2\tbk9-p1\t1gbit\t0ms\t0\n2\tworker\tbk9-h2\t198.18.0.3\tbk9-p2\t1gbit\t0ms\t0\n");
    Files.createDirectories(lab.resolve("counters"));
    Files.writeString(lab.resolve("counters/before.json"), "{\"t\":" + START + ",\"links\":[]}");
    Path metrics = Files.createDirectories(lab.resolve("run/metrics"));
    List<String> lines = new ArrayList<>();
    for (int t = 0; t < roundSeconds.length; t++) {
      lines.add(String.format(Locale.ROOT, "{\"iteration\":%d,\"lost_residuals\":%d,\"replica_resyncs\":%d,"
          + "\"time_total_ms\":%.1f}", t, lost[t], t == 0 ? 2 : lost[t] / 2, roundSeconds[t] * 1000));
    }
    Files.write(metrics.resolve("iterations.jsonl"), lines);
    Files.writeString(metrics.resolve("epochs.jsonl"), "{\"epoch\":1,\"test_accuracy\":0.5}\n{\"epoch\":2,"
        + "\"test_accuracy\":" + accuracy + "}\n");
    Files.createDirectories(lab.resolve("logs"));
    Files.createDirectories(lab.resolve("run/logs"));
    return lab;
  }

  /** A log line's time as the lab's log layout prints it, in this machine's zone. */
  private static String at(double secondsAfterStart) {
    return DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT).withZone(ZoneId.systemDefault())
        .format(Instant.ofEpochMilli(Math.round((START + secondsAfterStart) * 1000)));
  }

  @Test
  void aPartitionRowAgainstTheUndisturbedRun() throws IOException {
    // undisturbed: 8 rounds, one per second from 2 s on; the slowest after the first is round 5
    double[] quiet = {3.0, 0.2, 0.2, 0.2, 0.2, 0.9, 0.2, 0.2};
    Path undisturbed = lab("none", netlab(new double[] {1, 2, 3}, new long[] {-1, 1, 8}, new long[] {0, 0, 0}, -1, -1),
        quiet, new int[8], 0.80);
    model(undisturbed, 1_000L, new byte[] {1, 2, 3});

    // partitioned: rounds 0..3 done by 10 s (host 2 sent 1,000 bytes per round), link down 10 s .. 40 s, round 4
    // waits 31.5 s, ends at 41.5 s (sample at 42); 4 more rounds after the link came back at 40 s, host 2 sending
    // 900 per round; the executor declared lost 25.5 s after the cut (never in reality for 30 s: a made-up log)
    double[] seconds = {2, 4, 6, 8, 10, 20, 30, 40, 42, 44, 46};
    long[] rounds = {1, 2, 3, 4, 4, 4, 4, 4, 5, 7, 9};
    long[] sent = {1000, 2000, 3000, 4000, 4000, 4000, 4000, 4000, 4000, 5800, 7600};
    double[] waited = {3.0, 0.2, 0.2, 0.2, 31.5, 0.2, 0.2, 0.2, 0.2};
    int[] lost = {0, 0, 0, 0, 2, 0, 0, 0, 0};
    Path cut = lab("down-30", netlab(seconds, rounds, sent, 10.0, 40.0), waited, lost, 0.7925);
    model(cut, 9_000_000L, new byte[] {1, 2, 3});   // the same bytes, written at another time
    Files.writeString(cut.resolve("run/logs/driver-20270115-080000.log"), String.join("\n",
        at(5) + " ERROR TaskSchedulerImpl: Lost executor 7 on 198.18.0.2: an earlier loss of another host",
        at(35.5) + " ERROR TaskSchedulerImpl: Lost executor 0 on 198.18.0.3: worker lost",
        at(36) + " WARN TaskSetManager: Lost task 1.0 in stage 4.0 (TID 9) (198.18.0.3 executor 0): "
            + "ExecutorLostFailure (executor 0 exited caused by one of the running tasks) Reason: worker lost") + "\n");
    Files.writeString(cut.resolve("logs/master.log"), at(35.4) + " WARN Master: Removing worker-20270115-1-198.18.0.3"
        + "-40000 because we got no heartbeat in 60 seconds\n");

    List<PartitionTable.Row> rows = PartitionTable.rows(dir);
    assertEquals(2, rows.size());
    PartitionTable.Row none = rows.get(0);
    assertFalse(none.disturbed());
    assertEquals(5, none.waitedRound());
    assertEquals(0.9, none.waitedSeconds(), 1e-9);
    assertEquals(0.2, none.medianRoundSeconds(), 1e-9);

    PartitionTable.Row row = rows.get(1);
    assertEquals(30, row.partitionSeconds());
    assertEquals(2, row.host());
    assertEquals(4, row.waitedRound());
    assertEquals(31.5, row.waitedSeconds(), 1e-9);
    assertEquals(42 - 10, row.roundEndedAfter(), 1e-9);
    assertEquals(25.5, row.declaredLostAfter(), 0.002);
    assertEquals("worker lost", row.declaredBy());
    assertEquals(25.4, row.workerRemovedAfter(), 0.002);
    assertEquals(2, row.lostResiduals());
    assertEquals(2 + 1, row.resyncs());
    assertEquals(0.7925, row.accuracy(), 1e-12);
    assertEquals(9, row.rounds());
    assertEquals(9 - 4, row.roundsAfterRejoin());
    assertEquals(1000, row.sentPerRoundBefore(), 1e-9);   // samples 2..10 s: 3,000 bytes over 3 rounds
    assertEquals((7600 - 4000) / 5.0, row.sentPerRoundAfter(), 1e-9);   // samples 40..46 s: rounds 4 -> 9
    assertTrue(row.workedAgain());

    String table = PartitionTable.markdown(rows);
    assertTrue(table.contains("| 30 s | 4: 31.5 s | at 25.5 s (worker lost; Master removed the Worker at 25.4 s) "
        + "| at 32.0 s | 2 | 3 | 79.25% (-0.75) | the undisturbed run's, bit for bit | 5 | yes (1 KB/round, 1 before) |"),
        table);

    model(cut, 9_000_000L, new byte[] {1, 2, 4});
    assertTrue(PartitionTable.markdown(PartitionTable.rows(dir)).contains("| 79.25% (-0.75) | differs |"));
    assertTrue(table.contains("| none | slowest after the first: 5, 0.9 s (median 0.20 s) |"), table);
  }

  /** run/model.zip holding one entry with these bytes, stamped with the given time. */
  private static void model(Path lab, long time, byte[] bytes) throws IOException {
    try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(lab.resolve("run/model.zip")))) {
      ZipEntry entry = new ZipEntry("coefficients.bin");
      entry.setTime(time);
      zip.putNextEntry(entry);
      zip.write(bytes);
      zip.closeEntry();
    }
  }

  @Test
  void aPartitionThatOutlastsTheRunTakesItsLengthFromTheDirectorysName() {
    assertEquals(30, PartitionTable.partitionSeconds(dir.resolve("down-150"), 10.0, 40.4));
    assertEquals(150, PartitionTable.partitionSeconds(dir.resolve("down-150"), 10.0, Double.NaN));
    IllegalStateException unnamed = assertThrows(IllegalStateException.class,
        () -> PartitionTable.partitionSeconds(dir.resolve("cut"), 10.0, Double.NaN));
    assertTrue(unnamed.getMessage().contains("down-SECONDS"), unnamed.getMessage());
  }

  @Test
  void aRunThatEndsRightAfterTheLinkComesBackSaysItCannotTell() throws IOException {
    // link down 10 s .. 40.4 s; the run's last 2 rounds end after it, with one counter sample (42 s) after the link
    // came back: no bytes per round to compare with the 1,000 before the cut
    double[] seconds = {2, 4, 6, 8, 10, 20, 30, 40, 42};
    long[] rounds = {1, 2, 3, 4, 4, 4, 4, 4, 6};
    long[] sent = {1000, 2000, 3000, 4000, 4000, 4000, 4000, 4000, 5800};
    lab("down-30", netlab(seconds, rounds, sent, 10.0, 40.4), new double[] {3.0, 0.2, 0.2, 0.2, 31.5, 0.2},
        new int[6], 0.79);
    List<PartitionTable.Row> rows = PartitionTable.rows(dir);
    assertEquals(2, rows.get(0).roundsAfterRejoin());
    assertFalse(rows.get(0).rejoinMeasured());

    // and a run over before the link came back
    PartitionTable.Row over = new PartitionTable.Row("down-150", 150, 2, 9, 75.9, 0.2, 76, 74, "worker lost", 74, 2, 3,
        0.8, "", 120, 0, 30_000, Double.NaN);
    String table = PartitionTable.markdown(List.of(rows.get(0), over));
    assertFalse(table.contains("NaN"), table);
    assertTrue(table.contains("| 2 | — (too few rounds between the counter samples to tell) |"), table);
    assertTrue(table.contains("| 0 | — (no round after the link came back) |"), table);
    for (JsonNode row : PartitionTable.json(List.of(rows.get(0), over))) {
      assertTrue(row.get("host_got_work_again").isNull(), row.toString());
    }
  }

  @Test
  void aHostThatSendsLessThanHalfAfterRejoiningGotNoWork() {
    PartitionTable.Row row = new PartitionTable.Row("down-150", 150, 2, 9, 75.9, 0.2, 76, 74, "worker lost", 74, 2, 3,
        0.8, "", 120, 30, 30_000, 14_000);
    assertFalse(row.workedAgain());
    PartitionTable.Row half = new PartitionTable.Row("down-150", 150, 2, 9, 75.9, 0.2, 76, 74, "worker lost", 74, 2,
        3, 0.8, "", 120, 30, 30_000, 15_000);
    assertTrue(half.workedAgain());
  }

  @Test
  void aLogTimeWithoutDateIsReadOnTheDayNearestTheRun() {
    double near = START + 3;
    double parsed = PartitionTable.epochSeconds(null, at(3), near);
    assertEquals(START + 3, parsed, 0.002);
  }
}
