package org.bitopk.lab.reproduction;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * environment.json's entries as REPRODUCTION.md lists them: one line per invocation of the command that
 * measured, with the command as recorded, the machine, and the 1/5/15-minute load averages when it started and
 * ended (a wall time means little without them).
 */
final class MachineLines {
  private MachineLines() {}

  static String markdown(List<JsonNode> entries) {
    StringBuilder b = new StringBuilder();
    for (JsonNode e : entries) {
      b.append("- `").append(DocumentPaths.commandLine(text(e, "command"))).append("`, ").append(text(e, "started")).append(" → ")
          .append(text(e, "finished")).append(": ").append(text(e, "host")).append(", ")
          .append(text(e, "cores")).append(" cores (").append(text(e, "cpu")).append("), ")
          .append(text(e, "memory_gib")).append(" GiB, ").append(text(e, "os")).append(", ")
          .append(text(e, "java")).append("; load average (1/5/15 min) ").append(load(e.get("load_at_start")))
          .append(" at the start, ").append(load(e.get("load_at_end"))).append(" at the end\n");
    }
    return b.toString();
  }

  private static String text(JsonNode e, String key) {
    JsonNode v = e.get(key);
    return v == null || v.isNull() ? "?" : v.asText();
  }

  private static String load(JsonNode loads) {
    if (loads == null || !loads.isArray() || loads.isEmpty()) {
      return "?";
    }
    StringBuilder b = new StringBuilder();
    for (JsonNode l : loads) {
      if (b.length() > 0) {
        b.append(" / ");
      }
      b.append(Numbers.fixed(l.asDouble(), 2));
    }
    return b.toString();
  }
}
