package org.bitopk.job.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Arrays;
import org.apache.hadoop.fs.Path;
import org.bitopk.datasets.FeatureNormalization;
import org.bitopk.job.config.TableInput;
import org.bitopk.job.table.TableData;

/**
 * A resumed run's table, once read, against what the run recorded when it started: its row counts and its resolved
 * normalisation (the per-channel mean and standard deviation that --normalize auto computes from the training
 * rows). The input files' checksums catch a changed file; this also catches a changed catalog table, which has no
 * files of its own, and a normalisation that would silently shift every input of the resumed rounds.
 */
final class SameTableCheck {
  /**
   * Relative tolerance of the recomputed statistics: Spark may split the files into other partitions on another
   * cluster, and sums in another grouping differ in their last bits.
   */
  static final double TOLERANCE = 1e-5;

  private SameTableCheck() {}

  /** @throws org.bitopk.job.BadInputException naming the table and what differs */
  static void require(JsonNode previousConfig, Path configFile, TableInput input, TableData loaded) {
    JsonNode table = previousConfig.path("resolved").path("table");
    if (!table.isObject()) {
      return;   // recorded before tables were described
    }
    String where = input.table() != null ? "table " + input.table() : input.path();
    String change = null;
    if (table.path("rows").asLong(-1) != loaded.rows()) {
      change = where + " has " + loaded.rows() + " rows, the run was trained on " + table.path("rows").asLong();
    } else if (table.path("test_rows").asLong(-1) != loaded.testRows()) {
      change = "the test rows are " + loaded.testRows() + ", the run was tested on " + table.path("test_rows").asLong();
    } else {
      JsonNode normalization = table.path("normalization");
      FeatureNormalization now = loaded.normalization();
      if (!close(normalization.path("mean"), now.mean()) || !close(normalization.path("std"), now.std())
          || !close(normalization.path("feature_scale"), new float[] {now.scale()})) {
        change = "the normalisation of " + where + " is mean " + Arrays.toString(now.mean()) + ", std "
            + Arrays.toString(now.std()) + ", the run was trained with mean " + normalization.path("mean") + ", std "
            + normalization.path("std");
      }
    }
    if (change != null) {
      throw InputFingerprint.notTheSameData(change, configFile);
    }
  }

  private static boolean close(JsonNode recorded, float[] now) {
    JsonNode values = recorded.isArray() ? recorded : null;
    if (values == null && recorded.isNumber() && now.length == 1) {
      return close(recorded.asDouble(), now[0]);
    }
    if (values == null || values.size() != now.length) {
      return false;
    }
    for (int i = 0; i < now.length; i++) {
      if (!close(values.get(i).asDouble(), now[i])) {
        return false;
      }
    }
    return true;
  }

  private static boolean close(double a, double b) {
    return Math.abs(a - b) <= TOLERANCE * Math.max(1e-3, Math.max(Math.abs(a), Math.abs(b)));
  }
}
