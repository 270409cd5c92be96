package org.bitopk.job.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.bitopk.job.JsonSyntax;

/**
 * The rows of one metrics file ({@code metrics/iterations.jsonl} or {@code metrics/epochs.jsonl}), read
 * column by column because every chart plots whole columns against each other.
 *
 * <p>A field missing from a line, or {@code null} there, reads as {@code NaN}: optional fields of the
 * run-output contract ({@code delta_up}, {@code delta_down}, {@code xi}) appear only when enabled, and a
 * chart leaves out a series that has no value at all.
 */
public final class MetricTable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String source;
  private final List<JsonNode> rows;
  private final List<Integer> lineNumbers;
  private final Set<String> fields;

  private MetricTable(String source, List<JsonNode> rows, List<Integer> lineNumbers) {
    this.source = source;
    this.rows = Collections.unmodifiableList(rows);
    this.lineNumbers = List.copyOf(lineNumbers);
    Set<String> names = new LinkedHashSet<>();
    for (JsonNode row : rows) {
      row.fieldNames().forEachRemaining(names::add);
    }
    this.fields = Collections.unmodifiableSet(names);
  }

  /**
   * Parses JSON lines; blank lines are skipped.
   *
   * @param source names the file in error messages
   * @throws IllegalArgumentException naming the file and line when a line is not a JSON object
   */
  public static MetricTable parse(String source, List<String> lines) {
    List<JsonNode> rows = new ArrayList<>(lines.size());
    List<Integer> lineNumbers = new ArrayList<>(lines.size());
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).trim();
      if (line.isEmpty()) {
        continue;
      }
      JsonNode node;
      try {
        node = JSON.readTree(line);
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException(
            source + " line " + (i + 1) + " is not valid JSON: " + JsonSyntax.describe(e), e);
      }
      if (node == null || !node.isObject()) {
        throw new IllegalArgumentException(
            source + " line " + (i + 1) + " is not a JSON object: " + abbreviate(line));
      }
      rows.add(node);
      lineNumbers.add(i + 1);
    }
    return new MetricTable(source, rows, lineNumbers);
  }

  /** How Jackson writes non-finite doubles. */
  private static final Set<String> NON_FINITE = Set.of("NaN", "Infinity", "-Infinity");

  /** The file these rows came from. */
  public String source() {
    return source;
  }

  public int size() {
    return rows.size();
  }

  /** Field names seen on at least one line, in first-seen order. */
  public Set<String> fields() {
    return fields;
  }

  /** True when at least one line carries a numeric value for {@code field}. */
  public boolean hasValues(String field) {
    for (JsonNode row : rows) {
      JsonNode v = row.get(field);
      if (v != null && v.isNumber()) {
        return true;
      }
    }
    return false;
  }

  /**
   * The numeric column {@code field}; {@code NaN} where a line lacks it or holds {@code null} (optional
   * fields), or a non-finite value as Jackson writes it ({@code "NaN"}, {@code "Infinity"}).
   *
   * @throws IllegalArgumentException naming the file and line when a value is of another type (e.g.
   *     {@code "loss": "abc"}): it would otherwise vanish from the chart as if it were missing
   */
  public double[] column(String field) {
    double[] out = new double[rows.size()];
    for (int i = 0; i < out.length; i++) {
      JsonNode v = rows.get(i).get(field);
      if (v == null || v.isNull()) {
        out[i] = Double.NaN;
      } else if (v.isNumber()) {
        out[i] = v.doubleValue();
      } else if (v.isTextual() && NON_FINITE.contains(v.asText())) {
        out[i] = Double.parseDouble(v.asText());
      } else {
        throw new IllegalArgumentException(source + " line " + lineNumbers.get(i) + ": field '" + field + "' is "
            + abbreviate(v.toString()) + ", expected a number");
      }
    }
    return out;
  }

  /** The first non-empty text value of {@code field}, or {@code ""} when no line has one. */
  public String firstText(String field) {
    for (JsonNode row : rows) {
      JsonNode v = row.get(field);
      if (v != null && !v.isNull() && !v.asText().isEmpty()) {
        return v.asText();
      }
    }
    return "";
  }

  /** The last value of a numeric column that is not {@code NaN}, or {@code NaN}. */
  public double last(String field) {
    double[] c = column(field);
    for (int i = c.length - 1; i >= 0; i--) {
      if (!Double.isNaN(c[i])) {
        return c[i];
      }
    }
    return Double.NaN;
  }

  @Override
  public String toString() {
    return "MetricTable[" + source + ", " + rows.size() + " rows, fields=" + Arrays.toString(fields.toArray()) + "]";
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
