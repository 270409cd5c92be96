package org.bitopk.lab.reproduction;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The table REPRODUCTION.md opens with: one row per claim (one per goal where a section checks several), with our
 * figure, the reference's, the status and a link to the section. Each row is read back from its section's own
 * tables, so that it says what the section says, whether the section was generated now or kept by
 * {@code --update} from an earlier version.
 */
final class SummaryTable {
  static final String LEAD = "What each section found, in one line; the section has the tables, how the runs were "
      + "made and the charts.";
  private static final String TITLE = "# Reproduction of the published figures\n\n";
  private static final String AFTER = "Generated from finished experiment outputs";
  private static final Pattern PAREN = Pattern.compile("\\(([^)]*)\\)");
  private static final Pattern GRID = Pattern.compile(" \\(grid (`[^`]+`)\\)$");

  private record Row(String claim, String ours, String reference, String status) {}

  private SummaryTable() {}

  /** {@code doc} with the summary of its sections between its title and the paragraph that says how it was made. */
  static String insert(String doc) {
    int start = doc.indexOf(TITLE);
    int end = doc.indexOf(AFTER);
    if (start != 0 || end < 0) {
      return doc;
    }
    return TITLE + markdown(SectionLayout.sections(doc)) + doc.substring(end);
  }

  static String markdown(Map<String, String> sections) {
    List<String> lines = new ArrayList<>();
    for (Map.Entry<String, String> s : sections.entrySet()) {
      String heading = s.getKey().substring(3);
      String link = "[" + label(heading) + "](#" + anchor(heading) + ")";
      for (Row r : rows(heading, s.getValue())) {
        lines.add("| " + cell(r.claim().isEmpty() ? link : link + ": " + r.claim()) + " | " + cell(r.ours()) + " | "
            + cell(r.reference()) + " | " + cell(r.status()) + " |");
      }
    }
    if (lines.isEmpty()) {
      return "";
    }
    return LEAD + "\n\n| claim | ours | reference | status |\n|---|---|---|---|\n" + String.join("\n", lines)
        + "\n\n";
  }

  /** A section's name in the summary: its claim up to the colon, and its grid. */
  private static String label(String heading) {
    Matcher grid = GRID.matcher(heading);
    if (!grid.find()) {
      return heading;
    }
    String claim = heading.substring(0, grid.start());
    return (claim.contains(":") ? claim.substring(0, claim.indexOf(':')) : claim) + ", " + grid.group(1);
  }

  /** GitHub's id of a heading: lower case, spaces to hyphens, only letters, digits, '-' and '_' kept. */
  static String anchor(String heading) {
    String lower = heading.replace("`", "").toLowerCase(Locale.ROOT).replace(' ', '-');
    return lower.replaceAll("(?U)[^\\w-]", "");
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }

  private static List<Row> rows(String heading, String section) {
    if (heading.equals("Not reproduced here")) {
      return List.of(new Row("", Numbers.NONE, Numbers.NONE, "not reproduced: no output given"));
    }
    for (Claim c : Claim.values()) {
      if (heading.startsWith(c.title())) {
        try {
          List<Row> rows = rowsOf(c, section);
          return rows.isEmpty() ? List.of(unread()) : rows;
        } catch (RuntimeException e) {   // a section in a form no row can be read from: it still gets its line
          return List.of(unread());
        }
      }
    }
    return List.of();
  }

  private static Row unread() {
    return new Row("", "see the section", Numbers.NONE, "see the section");
  }

  private static List<Row> rowsOf(Claim claim, String s) {
    return switch (claim) {
      case THESIS_MLP, THESIS_CNN -> one(MarkdownTable.first(s, "P", "modes", "paper", "ours"), t -> spread(s, t));
      case DOWNLINK_RATIO -> one(MarkdownTable.first(s, "P", "runs", "paper", "ours"), SummaryTable::ratio);
      case COMPRESSORS -> one(MarkdownTable.first(s, "run", "uplink", "final accuracy (%)"), SummaryTable::uplinks);
      case COUNTEREXAMPLE -> one(MarkdownTable.first(s, "setting", "unidirectional", "bidirectional"),
          SummaryTable::counterexample);
      case COMPRESSOR_EVALUATION -> one(MarkdownTable.first(s, "compressor", "rounds"), SummaryTable::evaluation);
      case TIME_TO_ACCURACY, LAB_TIME_TO_ACCURACY, LAB_DDP_TIME_TO_ACCURACY -> goals(s);
      case SCHEMES -> one(MarkdownTable.first(s, "scheme"), SummaryTable::schemes);
      case WIRE_FORMATS -> one(MarkdownTable.first(s, "values (up / down)"), SummaryTable::formats);
    };
  }

  private static List<Row> one(Optional<MarkdownTable> table, Function<MarkdownTable, Row> row) {
    return table.map(t -> List.of(row.apply(t))).orElse(List.of());
  }

  /** Equal accuracy: the spread between the modes at each P against the paper's. */
  private static Row spread(String section, MarkdownTable t) {
    List<String> p = t.column("P");
    List<String> ours = t.column("ours");
    List<String> paper = t.column("paper");
    List<String> above = new ArrayList<>();
    for (int i = 0; i < p.size(); i++) {
      if (number(ours.get(i)) > number(paper.get(i))) {
        above.add(p.get(i));
      }
    }
    String oursEpochs = "";
    String paperEpochs = "";
    for (String cell : MarkdownTable.first(section, "P", "mode").map(MarkdownTable::header).orElse(List.of())) {
      oursEpochs = cell.startsWith("ours, ") ? cell.substring(6) : oursEpochs;
      paperEpochs = cell.startsWith("paper, ") ? cell.substring(7) : paperEpochs;
    }
    String status = above.isEmpty() ? "spread at most the paper's at every P"
        : "spread above the paper's at P = " + String.join(", ", above);
    if (!oursEpochs.equals(paperEpochs) && !oursEpochs.isEmpty()) {
      status += "; " + oursEpochs + " against the paper's " + paperEpochs;
    }
    return new Row("", "spread between the modes " + String.join(" / ", ours) + " points at P = "
        + String.join(" / ", p) + (oursEpochs.isEmpty() ? "" : ", " + oursEpochs),
        String.join(" / ", paper) + (paperEpochs.isEmpty() ? "" : ", " + paperEpochs), status);
  }

  /** The downlink's share of the aggregate at the P the paper gives. */
  private static Row ratio(MarkdownTable t) {
    List<String> p = new ArrayList<>();
    List<String> ours = new ArrayList<>();
    List<String> paper = new ArrayList<>();
    List<Double> times = new ArrayList<>();
    for (int i = 0; i < t.rows().size(); i++) {
      if (!t.column("paper").get(i).equals(Numbers.NONE)) {
        p.add(t.column("P").get(i));
        ours.add(t.column("ours").get(i));
        paper.add(t.column("paper").get(i));
        times.add(number(t.column("ours / paper").get(i)));
      }
    }
    return new Row("", "nnz(p)/nnz(a) " + String.join(" / ", ours) + " at P = " + String.join(" / ", p),
        String.join(" / ", paper), "ours / paper " + range(times, false));
  }

  /** Uplink compressors: accuracy against TopK's, and which select about the target k. */
  private static Row uplinks(MarkdownTable t) {
    List<Double> vs = new ArrayList<>();
    List<String> inBand = new ArrayList<>();
    int sidco = 0;
    int sidcoInBand = 0;
    for (int i = 0; i < t.rows().size(); i++) {
      String uplink = t.column("uplink").get(i).replace("`", "");
      if (uplink.equals("topk")) {
        continue;
      }
      vs.add(number(t.column("vs topk (points)").get(i)));
      double k = number(t.column("achieved k / target k").get(i));
      boolean band = k >= 0.8 && k <= 1.2;
      if (band) {
        inBand.add(uplink);
      }
      if (uplink.startsWith("sidco")) {
        sidco++;
        sidcoInBand += band ? 1 : 0;
      }
    }
    return new Row("", "final accuracy against topk's " + range(vs, true) + " points; about the target k (0.8–1.2): "
        + (inBand.isEmpty() ? "none" : String.join(", ", inBand)),
        "SIDCo: about the target k, accuracy near TopK's",
        "SIDCo about the target k in " + sidcoInBand + " of " + sidco + " settings");
  }

  /** The counterexample in the paper's setting: which scheme ends closer to the optimum. */
  private static Row counterexample(MarkdownTable t) {
    int row = t.column("paper").indexOf(t.column("paper").stream().filter(c -> !c.equals(Numbers.NONE))
        .findFirst().orElseThrow());
    String paper = t.column("paper").get(row);
    Matcher m = PAREN.matcher(paper);
    String closer = t.column("bidirectional closer").get(row);
    boolean same = paper.startsWith(closer);
    return new Row("", "mean F − F* " + t.column("unidirectional").get(row) + " unidirectional vs "
        + t.column("bidirectional").get(row) + " bidirectional", m.find() ? m.group(1) : paper,
        "bidirectional closer: " + closer + (same ? ", as in the paper" : ", unlike the paper"));
  }

  /** Compressors on real gradients: which select about the target k faster than exact TopK. */
  private static Row evaluation(MarkdownTable t) {
    List<String> both = new ArrayList<>();
    int sidco = 0;
    int sidcoFaster = 0;
    for (int i = 0; i < t.rows().size(); i++) {
      String name = t.column("compressor").get(i).replace("`", "");
      boolean faster = t.column("faster than TopK").get(i).equals("yes");
      if (faster && t.column("k within 0.8–1.2").get(i).equals("yes")) {
        both.add(name);
      }
      if (name.startsWith("sidco")) {
        sidco++;
        sidcoFaster += faster ? 1 : 0;
      }
    }
    return new Row("", "about the target k and faster than exact TopK: " + (both.isEmpty() ? "none"
        : String.join(", ", both)), "SIDCo: about the target k, at less cost than exact TopK",
        "SIDCo faster than exact TopK in " + sidcoFaster + " of " + sidco + " settings");
  }

  /** Every goal of the goal tables ("| goal |" or "| target |"): ours, the reference, met or not. */
  private static List<Row> goals(String section) {
    List<Row> out = new ArrayList<>();
    for (MarkdownTable t : MarkdownTable.in(section)) {
      if (t.header().size() == 5 && t.header().get(1).equals("ours") && t.header().get(4).equals("met")) {
        for (List<String> r : t.rows()) {
          out.add(new Row(r.get(0), r.get(1), r.get(2), "met: " + r.get(4) + " (" + r.get(3) + ")"));
        }
      }
    }
    return out;
  }

  /** The schemes side by side: the best and the lowest final accuracy at each scheme's best learning rate. */
  private static Row schemes(MarkdownTable t) {
    List<String> accuracy = t.column("final accuracy (%)");
    int best = 0;
    int lowest = 0;
    for (int i = 1; i < accuracy.size(); i++) {
      best = number(accuracy.get(i)) > number(accuracy.get(best)) ? i : best;
      lowest = number(accuracy.get(i)) < number(accuracy.get(lowest)) ? i : lowest;
    }
    List<String> scheme = t.column("scheme");
    return new Row("", "best " + scheme.get(best) + " " + accuracy.get(best) + " %; lowest " + scheme.get(lowest)
        + " " + accuracy.get(lowest) + " %", "no paper's figure on this setting",
        t.rows().size() + " schemes, each at its best learning rate");
  }

  /** Value formats: each format's final accuracy against fp32's, and the 16-bit target. */
  private static Row formats(MarkdownTable t) {
    List<String> against = new ArrayList<>();
    List<String> missed = new ArrayList<>();
    String target = t.header().size() > 3 ? t.header().get(3) : "";
    for (List<String> r : t.rows()) {
      if (!r.get(2).equals("reference")) {
        against.add(r.get(0) + " " + r.get(2));
      }
      if (r.get(3).equals("not met (target)")) {
        missed.add(r.get(0));
      }
    }
    return new Row("", String.join(", ", against) + " points against fp32", "fp16 and bf16 " + target,
        missed.isEmpty() ? "met" : "not met: " + String.join(", ", missed));
  }

  private static double number(String cell) {
    try {
      return Double.parseDouble(cell.replace('−', '-').replace("+", "").replace("%", "").strip());
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  /** The lowest and highest of {@code values}, with their signs when {@code signed}. */
  private static String range(List<Double> values, boolean signed) {
    double lo = values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    double hi = values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    Function<Double, String> f = v -> signed ? Numbers.signed(v, 2) : Numbers.fixed(v, 2);
    return lo == hi ? f.apply(lo) : f.apply(lo) + " to " + f.apply(hi);
  }
}
