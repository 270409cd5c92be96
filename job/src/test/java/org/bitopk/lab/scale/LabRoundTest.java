package org.bitopk.lab.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.bitopk.lab.scale.RoundCostModel.Breakdown;
import org.bitopk.lab.scale.RoundCostModel.Scheme;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lab directory as {@code job/bench/scale-lab.sh} leaves it, written here with known rounds and counters, read
 * back: medians after the warm-up rounds, the round split, Spark's bytes per task and the copies of the update
 * leaving the driver, worked out by hand; and the model's transfer terms equal the counters' bytes over the link.
 */
class LabRoundTest {
  @TempDir
  Path dir;

  /** Round t: total 100 + 10·t ms, job 80 + t, task path 40, aggregate 5 + t, broadcast 2; bytes constant. */
  private Path lab(String name, String mode, String rate, int workers, int tasks, int rounds, double upBytes,
      double downBytes, double received, double sent) throws IOException {
    Path lab = dir.resolve(name);
    Files.createDirectories(lab.resolve("run/metrics"));
    Files.writeString(lab.resolve("run/config.json"), "{\"mode\":\"" + mode + "\",\"workers\":" + workers
        + ",\"resolved\":{\"dimension\":1000000,\"large_entries_per_worker\":10000}}");
    StringBuilder lines = new StringBuilder();
    for (int t = 0; t < rounds; t++) {
      long nnz = mode.equals("dense") ? 1_000_000L * workers : 10_000L * workers;
      long downNnz = mode.equals("dense") ? 1_000_000 : 10_000;
      lines.append(String.format(Locale.ROOT, "{\"iteration\":%d,\"workers\":%d,\"tasks\":%d,\"up_bytes\":%.0f,"
          + "\"down_bytes\":%.0f,\"up_nnz\":%d,\"down_nnz\":%d,\"down_target_k\":%d,\"time_total_ms\":%d,"
          + "\"time_job_ms\":%d,\"time_task_path_ms\":40,\"time_aggregate_ms\":%d,\"time_broadcast_ms\":2}%n",
          t, workers, tasks, upBytes, downBytes, nnz, downNnz, downNnz, 100 + 10 * t, 80 + t, 5 + t));
    }
    Files.writeString(lab.resolve("run/metrics/iterations.jsonl"), lines);
    StringBuilder hosts = new StringBuilder();
    for (int h = 0; h <= 4; h++) {
      hosts.append(h == 0 ? "" : ",").append("{\"host\":").append(h).append(",\"rate\":\"").append(rate)
          .append("\"}");
    }
    Files.writeString(lab.resolve("netlab.json"), "{\"hosts\":[" + hosts + "],\"rounds\":{\"hosts\":[{\"host\":0,"
        + "\"sent_bytes_per_round\":" + sent + ",\"received_bytes_per_round\":" + received + "}]}}");
    Files.writeString(lab.resolve("spark-timings.json"), "{\"scheduler_delay_ms\":12.5,\"deserialize_ms\":30.0}");
    return lab;
  }

  @Test
  void aRoundIsSplitFromTheRunsTimingsAndTheDriversCounters() throws IOException {
    // 7 rounds, the first 2 left out: totals 120 … 160 (median 140), aggregate 7 … 11 (median 9) + 2
    LabRound r = LabRound.read(lab("100mbit-bi-p16", "bidirectional", "100mbit", 16, 4, 7, 800_000, 50_000,
        830_000, 250_000));
    assertEquals(Scheme.BIDIRECTIONAL, r.scheme());
    assertEquals(100_000_000, r.rateBitsPerSecond());
    assertEquals(16, r.workers());
    assertEquals(4, r.tasks());
    assertEquals(4, r.executors());
    assertEquals(10_000, r.kUp());
    assertEquals(140, r.roundMillis(), 1e-9);
    assertEquals(84, r.jobMillis(), 1e-9);
    assertEquals(40, r.computeMillis(), 1e-9);
    assertEquals(11, r.driverMillis(), 1e-9);
    assertEquals(5.0, r.upBytesPerCoordinate(), 1e-12);
    // 830,000 B in and 250,000 B out at 12.5 MB/s
    assertEquals(66.4, r.uplinkTransferMillis(), 1e-9);
    assertEquals(20.0, r.fanOutMillis(), 1e-9);
    assertEquals(140 - 40 - 11 - 66.4 - 20, r.restMillis(), 1e-9);
    assertEquals(30_000 / 4.0, r.sparkUpBytesPerTask(), 1e-9);
    assertEquals((250_000 - 4 * 50_000) / 4.0, r.sparkDownBytesPerTask(), 1e-9);
    // with 5,000 B per task of Spark's own, (250,000 − 20,000) / 50,000 copies of the update left the driver
    assertEquals(4.6, r.copiesLeavingDriver(5_000), 1e-12);
    assertEquals(12.5, r.schedulerDelayMillis());
    assertEquals(30.0, r.deserializeMillis());

    // The model's transfer terms, given this point's own Spark bytes, are its counters over the link.
    RoundCostModel model = new RoundCostModel(new DriverCost(0, 0, 0), 0, 0, 0);
    Breakdown b = model.predict(r.scenario(2, r.sparkUpBytesPerTask(), r.sparkDownBytesPerTask()));
    assertEquals(r.uplinkTransferMillis(), 1e3 * b.uplink(), 1e-9);
    assertEquals(r.fanOutMillis(), 1e3 * b.downlink(), 1e-9);
  }

  @Test
  void everyFinishedLabIsReadAndAnUnshapedOneIsRefused() throws IOException {
    lab("1gbit-dense-p4", "dense", "1gbit", 4, 4, 5, 16e6, 4e6, 16.4e6, 16.3e6);
    lab("100mbit-bi-p4", "bidirectional", "100mbit", 4, 4, 5, 200_000, 50_000, 230_000, 270_000);
    Files.createDirectories(dir.resolve("interrupted"));
    List<LabRound> all = LabRound.readAll(dir);
    assertEquals(List.of("100mbit-bi-p4", "1gbit-dense-p4"), all.stream().map(LabRound::name).toList());
    LabRound dense = all.get(1);
    assertEquals(1_000_000_000, dense.rateBitsPerSecond());
    assertEquals(1_000_000, dense.kUp());
    assertEquals(4.0, dense.upBytesPerCoordinate(), 1e-12);

    Path unshaped = lab("none-bi-p4", "bidirectional", "none", 4, 4, 5, 200_000, 50_000, 230_000, 270_000);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LabRound.read(unshaped));
    assertTrue(e.getMessage().contains("netlab.json") && e.getMessage().contains("'none'"), e.getMessage());
    Path short_ = lab("100mbit-bi-p8", "bidirectional", "100mbit", 8, 4, 2, 200_000, 50_000, 230_000, 270_000);
    e = assertThrows(IllegalArgumentException.class, () -> LabRound.read(short_));
    assertTrue(e.getMessage().contains("2 rounds"), e.getMessage());
  }
}
