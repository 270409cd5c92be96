package org.bitopk.lab.reproduction;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bitopk.job.BadInputException;

/**
 * A CSV file with a header line, as the experiment runner and the measuring commands write it (RFC 4180
 * quoting: a field holding a comma, a quote or a line break is quoted, quotes doubled). Rows are header name to
 * field text; an empty field is an empty text.
 */
final class CsvTable {
  private final String source;
  private final List<String> header;
  private final List<Map<String, String>> rows;

  private CsvTable(String source, List<String> header, List<Map<String, String>> rows) {
    this.source = source;
    this.header = List.copyOf(header);
    this.rows = Collections.unmodifiableList(rows);
  }

  /**
   * Parses {@code text}; {@code source} names the file in error messages.
   *
   * @throws BadInputException naming the file and line when the file is empty or a row has a different number
   *     of fields than the header
   */
  static CsvTable parse(String source, String text) {
    List<String> lines = text.lines().filter(l -> !l.isBlank()).toList();
    if (lines.isEmpty()) {
      throw new BadInputException(source + ": empty, expected a header line");
    }
    List<String> header = fields(lines.get(0));
    List<Map<String, String>> rows = new ArrayList<>();
    for (int i = 1; i < lines.size(); i++) {
      List<String> fields = fields(lines.get(i));
      if (fields.size() != header.size()) {
        throw new BadInputException(source + " line " + (i + 1) + ": " + fields.size() + " fields, the header has "
            + header.size());
      }
      Map<String, String> row = new LinkedHashMap<>();
      for (int j = 0; j < header.size(); j++) {
        row.put(header.get(j), fields.get(j));
      }
      rows.add(Collections.unmodifiableMap(row));
    }
    return new CsvTable(source, header, rows);
  }

  /**
   * Refuses a header other than {@code expected} (same names, same order): a file from another version of the
   * command that wrote it would otherwise be read column by column as if it meant the same.
   */
  CsvTable requireHeader(List<String> expected) {
    return requireHeader(expected, List.of());
  }

  /**
   * As {@link #requireHeader(List)}, also accepting each of {@code earlier}: the columns an earlier version of the
   * command wrote, each the first columns of {@code expected} (the later columns of its rows read as absent).
   */
  CsvTable requireHeader(List<String> expected, List<List<String>> earlier) {
    if (!header.equals(expected) && !earlier.contains(header)) {
      throw new BadInputException(source + ": expected the columns " + String.join(",", expected)
          + (earlier.isEmpty() ? "" : " (or, written by an earlier version, " + String.join(" or ", earlier.stream()
              .map(columns -> String.join(",", columns)).toList()) + ")") + ", found " + String.join(",", header));
    }
    return this;
  }

  /** Whether the file has the column {@code name}. */
  boolean has(String name) {
    return header.contains(name);
  }

  static List<String> fields(String line) {
    List<String> fields = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted && c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
        field.append('"');
        i++;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.add(field.toString());
        field.setLength(0);
      } else {
        field.append(c);
      }
    }
    fields.add(field.toString());
    return fields;
  }

  /**
   * The number in {@code column} of {@code row}, NaN for an empty field.
   *
   * @throws BadInputException naming the file, row and column when the field is not a number
   */
  double number(Map<String, String> row, String column) {
    String text = row.get(column);
    if (text == null || text.isBlank()) {
      return Double.NaN;
    }
    try {
      return Double.parseDouble(text.strip());
    } catch (NumberFormatException e) {
      throw new BadInputException(source + " row " + (rows.indexOf(row) + 1) + ": column '" + column + "' is '"
          + text + "', expected a number or an empty field");
    }
  }

  String source() {
    return source;
  }

  List<String> header() {
    return header;
  }

  List<Map<String, String>> rows() {
    return rows;
  }
}
