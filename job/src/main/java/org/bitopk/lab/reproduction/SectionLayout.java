package org.bitopk.lab.reproduction;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The order of a section's parts, so that a reader finds the figures first: its tables (with their captions and the
 * notes that read them), then what the paper says and which runs gave ours, with their provenance (dates, loads,
 * restarts, rows kept from an earlier version), then the command, the machine lines and the charts. The generator
 * lays out every section it writes with this; {@code --update} lays out the sections it keeps with it too, so a
 * document written before this order existed takes it without its outputs. Laying out a laid-out section changes
 * nothing. A document's sections are split at their headings here too ({@link #sections}).
 */
final class SectionLayout {
  /** A section's parts, in the order they are written. */
  private enum Part { RESULTS, NOTE, PAPER, OURS, SETUP, KEPT_ROWS, TAIL }

  private SectionLayout() {}

  /** Sections by heading ("## …" line), each with its text up to the next one, in document order. */
  static Map<String, String> sections(String doc) {
    Map<String, String> out = new LinkedHashMap<>();
    int start = firstSection(doc);
    while (start < doc.length()) {
      int next = doc.indexOf("\n## ", start);
      int end = next < 0 ? doc.length() : next + 1;
      String text = doc.substring(start, end);
      out.put(text.substring(0, text.indexOf('\n') < 0 ? text.length() : text.indexOf('\n')), text);
      start = end;
    }
    return out;
  }

  /** Where the first section (its "## " line) starts; the document's length when it has none. */
  static int firstSection(String doc) {
    int i = doc.indexOf("\n## ");
    return i < 0 ? doc.length() : i + 1;
  }

  /** {@code section} ("## heading" line, then paragraphs) with its parts in the reading order. */
  static String laidOut(String section) {
    int headingEnd = section.indexOf('\n');
    if (headingEnd < 0) {
      return section;
    }
    String body = section.substring(headingEnd + 1);
    String trailing = body.substring(body.stripTrailing().length());
    List<String> blocks = blocks(body.stripTrailing());
    Map<Part, List<String>> parts = new EnumMap<>(Part.class);
    Part tail = null;
    Part previous = null;
    for (String block : blocks) {
      Part part = tail != null ? tail : kind(block, previous);
      if (part == Part.TAIL) {
        tail = Part.TAIL;
      }
      parts.computeIfAbsent(part, p -> new ArrayList<>()).add(block);
      previous = part;
    }
    StringBuilder b = new StringBuilder(section.substring(0, headingEnd + 1)).append('\n');
    List<String> ordered = new ArrayList<>();
    for (Part part : Part.values()) {
      ordered.addAll(parts.getOrDefault(part, List.of()));
    }
    b.append(String.join("\n\n", ordered));
    return b.append(trailing).toString();
  }

  /** Paragraphs, tables and fenced blocks: the text between blank lines (a fenced block kept whole). */
  private static List<String> blocks(String body) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    boolean fenced = false;
    for (String line : body.split("\n", -1)) {
      if (line.startsWith("```")) {
        fenced = !fenced;
      }
      if (line.isEmpty() && !fenced) {
        if (current.length() > 0) {
          out.add(current.toString());
          current.setLength(0);
        }
        continue;
      }
      if (current.length() > 0) {
        current.append('\n');
      }
      current.append(line);
    }
    if (current.length() > 0) {
      out.add(current.toString());
    }
    return out;
  }

  private static Part kind(String block, Part previous) {
    if (block.startsWith("**Command") || block.startsWith("**Machine and load")) {
      return Part.TAIL;
    }
    if (block.startsWith("**Paper.**")) {
      return Part.PAPER;
    }
    if (block.startsWith("**Ours.**")) {
      return Part.OURS;
    }
    if (block.startsWith("**Note:**")) {
      return Part.NOTE;
    }
    if (block.startsWith("The lab:")) {
      return Part.SETUP;
    }
    if (block.startsWith("**Rows from two sources.**") || (block.startsWith(">") && previous == Part.KEPT_ROWS)) {
      return Part.KEPT_ROWS;
    }
    return Part.RESULTS;
  }
}
