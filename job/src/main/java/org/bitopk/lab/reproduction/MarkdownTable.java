package org.bitopk.lab.reproduction;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** A table of a section as the document has it: header cells and rows of cells, read back for the summary. */
record MarkdownTable(List<String> header, List<List<String>> rows) {

  /** The tables of {@code text}, in order (a table: a "|" line, a "|---" line, then "|" lines). */
  static List<MarkdownTable> in(String text) {
    List<MarkdownTable> out = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i + 1 < lines.length; i++) {
      if (lines[i].startsWith("|") && lines[i + 1].startsWith("|---")) {
        List<List<String>> rows = new ArrayList<>();
        int j = i + 2;
        for (; j < lines.length && lines[j].startsWith("|"); j++) {
          rows.add(PreviousSection.cells(lines[j]));
        }
        out.add(new MarkdownTable(PreviousSection.cells(lines[i]), rows));
        i = j - 1;
      }
    }
    return out;
  }

  /** The first table of {@code text} whose header starts with these cells. */
  static Optional<MarkdownTable> first(String text, String... headerStart) {
    for (MarkdownTable t : in(text)) {
      if (t.header().size() >= headerStart.length
          && t.header().subList(0, headerStart.length).equals(List.of(headerStart))) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  /** Column {@code name}'s cells, one per row ("" where a row is short). */
  List<String> column(String name) {
    int c = header.indexOf(name);
    List<String> out = new ArrayList<>();
    for (List<String> row : rows) {
      out.add(c >= 0 && c < row.size() ? row.get(c) : "");
    }
    return out;
  }
}
