package org.bitopk.lab.reproduction;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The version of a grid's section that {@code reproduction --update} is about to replace, read back for what a
 * partial refresh keeps of it: the rows of its table whose runs are not in the directory given now, the paragraph
 * that said where those runs were, the command that made them and the runner invocations' machine lines, each
 * exactly as that version had them.
 */
final class PreviousSection {
  private static final String MACHINE = "**Machine and load**";
  private final List<String> lines;

  PreviousSection(String text) {
    this.lines = List.of(text.split("\n", -1));
  }

  /**
   * The rows of the first table whose header starts with {@code headerStart}, byte for byte, that no fresh row
   * replaces: a row's key is its first {@code keyCells} cells.
   */
  List<String> rowsNotIn(String headerStart, int keyCells, Set<List<String>> freshKeys) {
    List<String> out = new ArrayList<>();
    int i = 0;
    while (i < lines.size() && !lines.get(i).startsWith(headerStart)) {
      i++;
    }
    for (i += 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
      if (!freshKeys.contains(cells(lines.get(i)).subList(0, keyCells))) {
        out.add(lines.get(i));
      }
    }
    return out;
  }

  /** A table row's cells, trimmed. */
  static List<String> cells(String row) {
    String inner = row.strip();
    inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
    List<String> out = new ArrayList<>();
    for (String c : inner.split("\\|", -1)) {
      out.add(c.strip());
    }
    return out;
  }

  /**
   * What the previous version said about its runs: its "**Ours.**" paragraph and any paragraphs that follow it
   * before the table (notes, and the provenance of rows an earlier refresh kept).
   */
  String about() {
    StringBuilder b = new StringBuilder();
    boolean in = false;
    for (String line : lines) {
      if (line.startsWith("**Ours.**")) {
        in = true;
      } else if (in && (line.startsWith("**Note:**") || line.startsWith("|") || line.startsWith("Final ")
          || line.startsWith("**Command.**"))) {
        break;
      }
      if (in) {
        b.append(line).append('\n');
      }
    }
    return b.toString().strip();
  }

  /** The command in its "**Command.**" block, or the empty string. */
  String command() {
    for (int i = 0; i + 2 < lines.size(); i++) {
      if (lines.get(i).startsWith("**Command.**") && lines.get(i + 2).startsWith("```")) {
        return lines.get(i + 3);
      }
    }
    return "";
  }

  /** Its machine and load lines (one per runner invocation, and those it had kept), as it had them. */
  List<String> machineLines() {
    List<String> out = new ArrayList<>();
    boolean in = false;
    for (String line : lines) {
      if (line.startsWith(MACHINE)) {
        in = true;
      } else if (in && line.startsWith("**")) {
        break;
      } else if (in && line.startsWith("- ")) {
        out.add(line);
      }
    }
    return out;
  }

  /** Its chart lines ({@code ![alt](link)}), fresh and kept alike, as it had them. */
  List<String> chartLines() {
    List<String> out = new ArrayList<>();
    for (String line : lines) {
      if (line.startsWith("![") && line.endsWith(")") && line.contains("](")) {
        out.add(line);
      }
    }
    return out;
  }

  /** The link of a Markdown image line {@code ![alt](link)}. */
  static String imageLink(String line) {
    return line.substring(line.lastIndexOf("](") + 2, line.length() - 1);
  }
}
