package org.bitopk.notebooks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Writes a run directory following the README run-output contract, field for field. */
final class RunOutputFixture {

  private RunOutputFixture() {}

  static Path write(Path dir, String mode, String compressor, int workers, int iterations, int perEpoch)
      throws IOException {
    Files.createDirectories(dir.resolve("metrics"));
    Files.writeString(dir.resolve("config.json"), String.format(Locale.ROOT,
        "{\n  \"mode\": \"%s\",\n  \"compressor\": \"%s\",\n  \"workers\": %d,\n  \"seed\": 1\n}\n",
        mode, compressor, workers));
    List<String> it = new ArrayList<>();
    List<String> ep = new ArrayList<>();
    long cumUp = 0;
    long cumDown = 0;
    for (int i = 1; i <= iterations; i++) {
      int epoch = (i - 1) / perEpoch + 1;
      long up = mode.equals("dense") ? 400_000L * workers : 4_000L * workers;
      long down = mode.equals("bidirectional") ? 4_000 : up / workers * Math.min(workers, 3);
      cumUp += up;
      cumDown += down;
      it.add(String.format(Locale.ROOT, "{\"run\":\"%s\",\"mode\":\"%s\",\"workers\":%d,\"iteration\":%d,\"epoch\":%d,"
          + "\"loss\":%.4f,\"lr\":0.1,\"up_bytes\":%d,\"down_bytes\":%d,\"up_nnz\":%d,\"down_nnz\":%d,\"agg_nnz\":%d,"
          + "\"up_target_k\":100,\"up_achieved_k\":100.0,\"down_target_k\":100,\"down_achieved_k\":100,"
          + "\"delta_up\":0.9,\"delta_down\":0.5,\"xi\":0.1,"
          + "\"time_gradient_ms\":10.0,\"time_compress_ms\":1.0,\"time_aggregate_ms\":0.5,\"time_broadcast_ms\":2.0,"
          + "\"time_total_ms\":20.0}",
          dir.getFileName(), mode, workers, i, epoch, 2.3 / Math.sqrt(i), up, down, 100 * workers,
          mode.equals("bidirectional") ? 100 : 100 * workers, 100 * workers));
      if (i % perEpoch == 0) {
        ep.add(String.format(Locale.ROOT, "{\"run\":\"%s\",\"mode\":\"%s\",\"workers\":%d,\"epoch\":%d,\"iteration\":%d,"
            + "\"train_loss\":%.4f,\"test_loss\":%.4f,\"test_accuracy\":%.4f,\"cum_up_bytes\":%d,\"cum_down_bytes\":%d}",
            dir.getFileName(), mode, workers, epoch, i, 2.0 / epoch, 2.1 / epoch, 1 - 0.5 / epoch, cumUp, cumDown));
      }
    }
    Files.write(dir.resolve("metrics/iterations.jsonl"), it);
    Files.write(dir.resolve("metrics/epochs.jsonl"), ep);
    return dir;
  }
}
