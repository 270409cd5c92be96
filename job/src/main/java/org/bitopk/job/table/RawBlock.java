package org.bitopk.job.table;

import org.bitopk.datasets.ChannelMoments;
import org.bitopk.datasets.FeatureNormalization;
import org.bitopk.datasets.LabelIndex;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.datasets.NormalizationSpec;
import org.bitopk.datasets.TableSplit;
import org.bitopk.datasets.WorkerShard;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Row;

/**
 * One Spark partition of a table, decoded on its executor into the compact form the shards are cut from:
 * the raw feature values as one {@code float[]} (row-major), the labels as numbers or strings, in the order
 * Spark read the rows. A row that cannot be used (null, NaN, wrong length) stops decoding and is recorded as
 * the block's problem, so that the driver reports it in one line instead of a task failure.
 */
final class RawBlock implements Serializable {
  private static final long serialVersionUID = 1L;
  /** Distinct string labels a partition may hold before the column is judged not to be a class label. */
  static final int MAX_CLASSES = LabelIndex.MAX_CLASSES;

  final int partition;
  final int count;
  final int featureLength;
  final float[] features;
  final double[] numericLabels;
  final String[] stringLabels;
  final String problem;
  final int problemRow;

  private RawBlock(int partition, int count, int featureLength, float[] features, double[] numericLabels,
      String[] stringLabels, String problem, int problemRow) {
    this.partition = partition;
    this.count = count;
    this.featureLength = featureLength;
    this.features = features;
    this.numericLabels = numericLabels;
    this.stringLabels = stringLabels;
    this.problem = problem;
    this.problemRow = problemRow;
  }

  /**
   * Decodes rows of {@code layout.selectedColumns()} (label first).
   *
   * @param expectedLength the feature length every row must have, or -1 to take the first row's
   */
  static RawBlock decode(int partition, Iterator<Row> rows, TableLayout layout, int expectedLength) {
    boolean strings = layout.stringLabel();
    String[] columns = layout.selectedColumns();
    int length = layout.kind() == TableLayout.FeatureKind.SCALARS ? columns.length - 1 : expectedLength;
    float[] features = new float[Math.max(length, 0) * 64];
    double[] numeric = strings ? null : new double[64];
    String[] names = strings ? new String[64] : null;
    int n = 0;
    while (rows.hasNext()) {
      Row row = rows.next();
      Object label = row.get(0);
      if (label == null) {
        return failed(partition, n, "label column '" + columns[0] + "' is null");
      }
      if (n == (strings ? names.length : numeric.length)) {
        if (strings) {
          names = Arrays.copyOf(names, n * 2);
        } else {
          numeric = Arrays.copyOf(numeric, n * 2);
        }
      }
      if (strings) {
        names[n] = (String) label;
      } else {
        double v = ((Number) label).doubleValue();
        if (Double.isNaN(v)) {
          return failed(partition, n, "label column '" + columns[0] + "' is NaN");
        }
        numeric[n] = v;
      }
      int rowLength = rowLength(row, layout, columns);
      if (rowLength < 0) {
        return failed(partition, n, "feature column '" + columns[1] + "' is null");
      }
      if (length < 0) {
        length = rowLength;
        features = new float[length * 64];
      } else if (rowLength != length) {
        return failed(partition, n, "the features have " + rowLength + " values, expected " + length
            + " (as in the " + (expectedLength >= 0 ? "training data" : "first row") + ")");
      }
      if ((long) (n + 1) * length > Integer.MAX_VALUE - 8) {
        return failed(partition, n, "one Spark partition holds more than 2^31 feature values; repartition "
            + "the table into more partitions");
      }
      if ((n + 1) * length > features.length) {
        features = Arrays.copyOf(features, (int) Math.min(Integer.MAX_VALUE - 8L,
            Math.max((long) features.length * 2, (long) (n + 1) * length)));
      }
      Optional<String> bad = readFeatures(row, layout, columns, features, n * length, length);
      if (bad.isPresent()) {
        return failed(partition, n, bad.get());
      }
      n++;
    }
    int l = Math.max(length, 0);
    return new RawBlock(partition, n, l, Arrays.copyOf(features, n * l),
        strings ? null : Arrays.copyOf(numeric, n), strings ? Arrays.copyOf(names, n) : null, null, -1);
  }

  private static RawBlock failed(int partition, int row, String problem) {
    return new RawBlock(partition, row, 0, new float[0], null, null, problem, row);
  }

  /** The row's feature count, or -1 when the (single) array/Vector column is null. */
  private static int rowLength(Row row, TableLayout layout, String[] columns) {
    switch (layout.kind()) {
      case SCALARS:
        return columns.length - 1;
      case ARRAY:
        return row.isNullAt(1) ? -1 : row.getList(1).size();
      default:
        return row.isNullAt(1) ? -1 : ((Vector) row.get(1)).size();
    }
  }

  /** Copies the row's features as floats; returns what is wrong, empty when nothing is. */
  private static Optional<String> readFeatures(Row row, TableLayout layout, String[] columns, float[] out, int offset,
      int length) {
    switch (layout.kind()) {
      case SCALARS:
        for (int j = 0; j < length; j++) {
          Object v = row.get(j + 1);
          if (v == null) {
            return Optional.of("feature column '" + columns[j + 1] + "' is null");
          }
          float f = ((Number) v).floatValue();
          if (!Float.isFinite(f)) {
            return Optional.of("feature column '" + columns[j + 1] + "' is " + v + ", not a finite 32-bit number");
          }
          out[offset + j] = f;
        }
        return Optional.empty();
      case ARRAY: {
        List<Object> values = row.getList(1);
        for (int j = 0; j < length; j++) {
          Object v = values.get(j);
          if (v == null) {
            return Optional.of("feature " + j + " of column '" + columns[1] + "' is null");
          }
          float f = ((Number) v).floatValue();
          if (!Float.isFinite(f)) {
            return Optional.of("feature " + j + " of column '" + columns[1] + "' is " + v
                + ", not a finite 32-bit number");
          }
          out[offset + j] = f;
        }
        return Optional.empty();
      }
      default: {
        Vector vector = (Vector) row.get(1);
        if (vector instanceof SparseVector sparse) {
          Arrays.fill(out, offset, offset + length, 0f);
          int[] indices = sparse.indices();
          double[] values = sparse.values();
          for (int k = 0; k < indices.length; k++) {
            float f = (float) values[k];
            if (!Float.isFinite(f)) {
              return Optional.of("feature " + indices[k] + " of column '" + columns[1] + "' is " + values[k]
                  + ", not a finite 32-bit number");
            }
            out[offset + indices[k]] = f;
          }
        } else {
          for (int j = 0; j < length; j++) {
            double v = vector.apply(j);
            float f = (float) v;
            if (!Float.isFinite(f)) {
              return Optional.of("feature " + j + " of column '" + columns[1] + "' is " + v
                + ", not a finite 32-bit number");
            }
            out[offset + j] = f;
          }
        }
        return Optional.empty();
      }
    }
  }

  /** What the driver needs to decide classes, shape and split without seeing the rows. */
  Summary summary() {
    Summary s = new Summary(partition, count, featureLength, problem, problemRow);
    if (problem != null) {
      return s;
    }
    if (stringLabels != null) {
      s.names = new TreeSet<>();
      for (int i = 0; i < count; i++) {
        if (s.names.add(stringLabels[i]) && s.names.size() > MAX_CLASSES) {
          s.names = null;
          s.tooManyNames = true;
          break;
        }
      }
      return s;
    }
    for (int i = 0; i < count; i++) {
      double v = numericLabels[i];
      if (v < s.min) {
        s.min = v;
        s.minRow = i;
      }
      if (v > s.max) {
        s.max = v;
        s.maxRow = i;
      }
      if (s.fractionalRow < 0 && v != Math.rint(v)) {
        s.fractionalRow = i;
        s.fractional = v;
      }
    }
    return s;
  }

  /** Per-partition facts, small enough to collect. */
  static final class Summary implements Serializable {
    private static final long serialVersionUID = 1L;
    final int partition;
    final int count;
    final int featureLength;
    final String problem;
    final int problemRow;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    int minRow = -1;
    int maxRow = -1;
    double fractional;
    int fractionalRow = -1;
    TreeSet<String> names;
    boolean tooManyNames;

    Summary(int partition, int count, int featureLength, String problem, int problemRow) {
      this.partition = partition;
      this.count = count;
      this.featureLength = featureLength;
      this.problem = problem;
      this.problemRow = problemRow;
    }
  }
}
