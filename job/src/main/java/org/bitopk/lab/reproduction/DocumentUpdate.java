package org.bitopk.lab.reproduction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code reproduction --update}: merges a freshly generated document into an existing one, section by section, so a
 * claim measured now can join claims whose outputs are elsewhere (another machine, an archive). The sections of the
 * claims given now replace those of the same heading or are inserted in claim order; the others are kept verbatim;
 * "Not reproduced here" keeps only the claims no section covers; the header's command lists the old inputs and the
 * new ones, so it regenerates the whole document wherever all of them are at hand.
 */
final class DocumentUpdate {
  private static final String NOT_REPRODUCED = "## Not reproduced here";
  private static final String OTHERS = "## Other experiments";
  private static final Pattern COMMAND = Pattern.compile("```bash\n(submit/run-local\\.sh reproduction[^\n]*)\n```");

  /** Why a document is not one to merge into or replace. */
  static final String NOT_OWN = "is not a document the reproduction command wrote (no title or no regenerate "
      + "command in its header)";

  private DocumentUpdate() {}

  /** True if {@code doc} is one the reproduction command wrote: its title and its header's regenerate command. */
  static boolean isOwn(String doc) {
    return doc.startsWith("# Reproduction of the published figures") && COMMAND.matcher(doc).find();
  }

  /**
   * @param old the existing document
   * @param fresh the document generated from this invocation's outputs
   * @param freshCommand this invocation's regenerate command (as in {@code fresh}'s header)
   * @return the merged document
   */
  static String merge(String old, String fresh, String freshCommand) {
    Matcher oldCommand = COMMAND.matcher(old);
    if (!isOwn(old)) {
      throw new IllegalArgumentException(NOT_OWN);
    }
    oldCommand.find();
    Map<String, String> oldSections = SectionLayout.sections(old);
    Map<String, String> freshSections = SectionLayout.sections(fresh);
    String command = mergedCommand(oldCommand.group(1), freshCommand,
        superseded(experiments(options(oldCommand.group(1))), oldSections, freshSections));
    Map<String, String> merged = new LinkedHashMap<>(oldSections);
    merged.putAll(freshSections);
    merged.remove(NOT_REPRODUCED);
    List<String> headings = new ArrayList<>(merged.keySet());
    headings.sort((a, b) -> Integer.compare(rank(a), rank(b)));
    String header = fresh.substring(0, SectionLayout.firstSection(fresh)).replace(freshCommand, command);
    StringBuilder b = new StringBuilder(header);
    for (String heading : headings) {
      // a kept section of a claim takes the current layout; "Other experiments" holds several, laid out one by one
      b.append(rank(heading) < Claim.values().length ? SectionLayout.laidOut(merged.get(heading)) : merged.get(heading));
    }
    String notReproduced = freshSections.get(NOT_REPRODUCED);
    if (notReproduced != null) {
      b.append(uncovered(notReproduced, headings));
    }
    return SummaryTable.insert(b.toString());
  }

  /** Claim sections in claim order, then "Other experiments", then anything else in its order. */
  private static int rank(String heading) {
    for (Claim c : Claim.values()) {
      if (heading.startsWith("## " + c.title())) {
        return c.ordinal();
      }
    }
    return heading.equals(OTHERS) ? Claim.values().length : Claim.values().length + 1;
  }

  /** The "Not reproduced here" section without the rows of claims a section now covers; empty if none remain. */
  private static String uncovered(String section, List<String> headings) {
    StringBuilder b = new StringBuilder();
    int rows = 0;
    for (String line : section.split("\n", -1)) {
      boolean claimRow = false;
      boolean covered = false;
      for (Claim c : Claim.values()) {
        if (line.startsWith("| " + c.title() + " |")) {
          claimRow = true;
          covered = headings.stream().anyMatch(h -> h.startsWith("## " + c.title()));
        }
      }
      if (claimRow && covered) {
        continue;
      }
      rows += claimRow ? 1 : 0;
      b.append(line).append('\n');
    }
    return rows == 0 ? "" : b.substring(0, b.length() - 1);
  }

  /**
   * The old experiment directories whose sections a fresh section replaces: a directory quoted (as {@code `DIR`})
   * in an old section that a fresh one of the same heading no longer quotes. Without this, updating a claim from a
   * second directory (a longer run of the same grid) would leave both in the command, which would then generate
   * the claim from both.
   */
  private static Set<String> superseded(List<String> oldExperiments, Map<String, String> oldSections,
      Map<String, String> freshSections) {
    Set<String> out = new LinkedHashSet<>();
    for (String dir : oldExperiments) {
      String quoted = "`" + dir + "`";
      for (Map.Entry<String, String> fresh : freshSections.entrySet()) {
        String replaced = oldSections.get(fresh.getKey());
        if (replaced != null && replaced.contains(quoted) && !fresh.getValue().contains(quoted)) {
          out.add(dir);
        }
      }
    }
    return out;
  }

  /**
   * The old command's inputs with this invocation's: experiments united (old first, less the {@code superseded}
   * ones), single outputs replaced.
   */
  static String mergedCommand(String old, String fresh, Set<String> superseded) {
    Map<String, String> a = options(old);
    Map<String, String> b = options(fresh);
    Set<String> experiments = new LinkedHashSet<>(experiments(a));
    experiments.removeAll(superseded);
    experiments.addAll(experiments(b));   // this invocation's own directories stay, whatever an old section quoted
    Map<String, String> merged = new LinkedHashMap<>(a);
    merged.putAll(b);
    merged.remove("--update");
    StringBuilder out = new StringBuilder("submit/run-local.sh reproduction");
    if (!experiments.isEmpty()) {
      out.append(" --experiments ").append(String.join(",", experiments));
    }
    for (Map.Entry<String, String> e : merged.entrySet()) {
      if (!e.getKey().equals("--experiments")) {
        out.append(' ').append(e.getKey()).append(e.getValue().isEmpty() ? "" : " " + e.getValue());
      }
    }
    return out.toString();
  }

  private static List<String> experiments(Map<String, String> options) {
    String list = options.get("--experiments");
    return list == null ? List.of() : List.of(list.split(","));
  }

  private static Map<String, String> options(String command) {
    String[] words = command.trim().split("\\s+");
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 2; i < words.length; i++) {
      if (words[i].startsWith("--")) {
        boolean value = i + 1 < words.length && !words[i + 1].startsWith("--");
        out.put(words[i], value ? words[++i] : "");
      }
    }
    return out;
  }
}
