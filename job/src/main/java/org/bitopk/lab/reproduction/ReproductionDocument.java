package org.bitopk.lab.reproduction;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.BadInputException;
import org.bitopk.lab.experiment.Grid;
import org.bitopk.lab.experiment.GridPoint;
import org.jspecify.annotations.Nullable;

/**
 * REPRODUCTION.md from checked outputs: a section per claim with the paper's figure, ours, the difference, the
 * command that produced ours, the machine and its load, and the charts (copied, scaled down, into the images
 * directory and linked relatively); experiments of grids that are no known claim under "Other experiments";
 * the claims no input was given for under "Not reproduced here" with the command that would produce them.
 */
final class ReproductionDocument {
  private final String regenerate;
  private final java.nio.file.Path file;
  private final java.nio.file.Path images;
  private final java.nio.file.Path grids;
  private final Configuration conf;
  private final Map<String, String> previousSections;
  private final Set<String> imageNames = new HashSet<>();

  /**
   * @param regenerate the command line that regenerates the document, quoted in its header
   * @param file where the document goes (its directory anchors the relative image links)
   * @param images where the charts go
   * @param grids the shipped grid files (for the commands and expected runtimes of claims not reproduced, and to
   *     say whether a grid as run is the shipped one); need not exist
   * @param previousSections the sections of the document being updated, by heading line (empty when writing
   *     a new one): a grid section refreshed from some of its points keeps the other rows from its previous version
   */
  ReproductionDocument(String regenerate, java.nio.file.Path file, java.nio.file.Path images,
      java.nio.file.Path grids, Configuration conf, Map<String, String> previousSections) {
    this.regenerate = regenerate;
    this.file = file.toAbsolutePath().normalize();
    this.images = images.toAbsolutePath().normalize();
    this.grids = grids.toAbsolutePath().normalize();
    this.conf = conf;
    this.previousSections = Map.copyOf(previousSections);
  }

  String render(List<ExperimentEvidence> experiments, MeasuredOutput evaluation, MeasuredOutput timeToAccuracy) {
    return render(experiments, evaluation, timeToAccuracy, null);
  }

  String render(List<ExperimentEvidence> experiments, MeasuredOutput evaluation, MeasuredOutput timeToAccuracy,
      LabTimeToAccuracySection lab) {
    return render(experiments, evaluation, timeToAccuracy, lab, null);
  }

  /** @param ddp the network lab's comparison against PyTorch DDP, or null */
  String render(List<ExperimentEvidence> experiments, MeasuredOutput evaluation, MeasuredOutput timeToAccuracy,
      LabTimeToAccuracySection lab, @Nullable LabTimeToAccuracySection ddp) {
    StringBuilder b = new StringBuilder("# Reproduction of the published figures\n\n")
        .append("Generated from finished experiment outputs, not written by hand. Regenerate it with:\n\n```bash\n")
        .append(regenerate).append("\n```\n\n")
        .append("Each figure of ours is recomputed from the runs' own metric lines, after checking that every point "
            + "of the grid finished, that each run's config.json is its grid point's settings and that the "
            + "experiment's results.csv agrees with the runs. Wall times were taken on the machine named in each "
            + "section, under the load stated there.\n\n");
    EnumSet<Claim> covered = EnumSet.noneOf(Claim.class);
    List<ExperimentEvidence> others = new ArrayList<>();
    for (Claim claim : Claim.values()) {
      for (ExperimentEvidence e : experiments) {
        if (Claim.ofGrid(e.grid().name()).equals(Optional.of(claim))) {
          covered.add(claim);
          experimentSection(b, "## " + claim.title() + " (grid `" + e.grid().name() + "`)", claim, e);
        }
      }
      if (claim == Claim.COMPRESSOR_EVALUATION && evaluation != null) {
        covered.add(claim);
        measuredSection(b, claim, evaluation, EvaluationSection.markdown(evaluation));
      }
      if (claim == Claim.TIME_TO_ACCURACY && timeToAccuracy != null) {
        covered.add(claim);
        measuredSection(b, claim, timeToAccuracy, TimeToAccuracySection.markdown(timeToAccuracy));
      }
      if (claim == Claim.LAB_TIME_TO_ACCURACY && lab != null) {
        covered.add(claim);
        measuredSection(b, claim, lab.output(), lab.markdown(), lab.launcher());
        for (Path chart : lab.charts()) {
          b.append(image("lab-time-to-accuracy", chart)).append("\n\n");
        }
      }
      if (claim == Claim.LAB_DDP_TIME_TO_ACCURACY && ddp != null) {
        covered.add(claim);
        measuredSection(b, claim, ddp.output(), ddp.markdown(), ddp.launcher());
        for (Path chart : ddp.charts()) {
          b.append(image("lab-ddp-time-to-accuracy", chart)).append("\n\n");
        }
      }
    }
    for (ExperimentEvidence e : experiments) {
      if (Claim.ofGrid(e.grid().name()).isEmpty()) {
        others.add(e);
      }
    }
    if (!others.isEmpty()) {
      b.append("## Other experiments\n\nGrids that check no published claim: their runs, checked like the others.\n\n");
      for (ExperimentEvidence e : others) {
        experimentSection(b, "### Grid `" + e.grid().name() + "`", null, e);
      }
    }
    notReproduced(b, covered);
    return SummaryTable.insert(b.toString());
  }

  /** The section of an experiment, laid out ({@link SectionLayout}) and appended to {@code out}. */
  private void experimentSection(StringBuilder out, String heading, Claim claim, ExperimentEvidence e) {
    StringBuilder b = new StringBuilder();
    experimentParts(b, heading, claim, e);
    out.append(SectionLayout.laidOut(b.toString()));
  }

  private void experimentParts(StringBuilder b, String heading, Claim claim, ExperimentEvidence e) {
    boolean keepsRows = claim == Claim.THESIS_MLP || claim == Claim.THESIS_CNN;
    PreviousSection previous = previousSections.containsKey(heading) && keepsRows
        ? new PreviousSection(previousSections.get(heading)) : null;
    if (!e.absent().isEmpty() && previous == null) {
      String dir = e.directory().replaceAll("/+$", "");
      String point = e.absent().get(0).name();
      throw new BadInputException("--experiments: " + dir + "/" + point + ": point '" + point + "' of " + dir
          + "/grid.json was never started; finish it with: experiment --grid " + dir + "/grid.json --out " + dir
          + (keepsRows ? ", or --update a document whose section of grid '" + e.grid().name() + "' has its row"
              : " (only the equal-accuracy sections keep the rows of absent points)"));
    }
    List<String> kept = previous == null ? List.of()
        : previous.rowsNotIn(AccuracyTable.HEADER_START, AccuracyTable.KEY_CELLS, AccuracyTable.keys(e));
    b.append(heading).append("\n\n");
    if (claim != null) {
      b.append("**Paper.** ").append(claim.paper()).append("\n\n");
    }
    b.append("**Ours.** ").append(e.runs().size()).append(" runs in `").append(DocumentPaths.shown(e.directory()))
        .append('`');
    if (e.grid().description() != null) {
      b.append(": ").append(e.grid().description());
    }
    b.append("\n\n");
    if (!kept.isEmpty()) {
      keptRowsNote(b, e, kept, previous);
    }
    if (claim == null) {
      b.append(RunsTable.markdown(e));
    } else {
      b.append(switch (claim) {
        case THESIS_MLP, THESIS_CNN -> AccuracyTable.markdown(e, kept);
        case DOWNLINK_RATIO -> DownlinkRatioTable.markdown(e);
        case COMPRESSORS -> CompressorTable.markdown(e);
        case COUNTEREXAMPLE -> CounterexampleTable.markdown(e);
        case SCHEMES -> SchemesTable.markdown(e);
        case WIRE_FORMATS -> WireFormatTable.markdown(e);
        default -> RunsTable.markdown(e);
      });
    }
    String shipped = Claim.shippedGridPath(e.grid().name());
    Optional<Grid> shippedGrid = shipped(e.grid().name());
    boolean same = shippedGrid.isPresent() && sameRuns(shippedGrid.get(), e.grid());
    String gridArgument = same ? shipped : DocumentPaths.shown(e.directory()).replaceAll("/+$", "") + "/grid.json";
    b.append("**Command.**\n\n```bash\nsubmit/run-local.sh experiment --grid ").append(gridArgument).append(" --out ")
        .append(DocumentPaths.shown(e.directory())).append("\n```\n\n");
    if (same) {
      b.append("The grid as run (`grid.json` in the experiment directory) has the runs of the shipped `")
          .append(shipped).append("`.");
    } else if (shippedGrid.isPresent()) {
      b.append("The grid as run differs from the shipped `").append(shipped)
          .append("`: the command above uses the experiment's own `grid.json`.");
    } else {
      b.append("No shipped grid file `").append(shipped).append("`: the command above uses the experiment's own "
          + "`grid.json`.");
    }
    if (e.grid().expectedRuntime() != null) {
      b.append(" Expected runtime (the grid's): ").append(shortRuntime(e.grid().expectedRuntime())).append('.');
    }
    b.append(String.format(java.util.Locale.ROOT, " Sum of the runs' round times: %.0f s.%n%n",
        e.runs().stream().mapToDouble(RunFigures::wallSeconds).sum()));
    b.append("**Machine and load** (environment.json, one line per invocation of the runner):\n\n")
        .append(MachineLines.markdown(e.environment())).append('\n');
    if (!kept.isEmpty()) {
      b.append("The kept rows' runs, as the previous version of this section recorded their runners' "
          + "invocations:\n\n");
      for (String line : previous.machineLines()) {
        b.append(line).append('\n');
      }
      b.append('\n');
    }
    List<Path> charts = new ArrayList<>();
    for (Path chart : e.charts()) {
      if (claim != Claim.DOWNLINK_RATIO || publishedWorkers(chart.getName())) {
        charts.add(chart);
      }
    }
    List<String> fresh = new ArrayList<>();
    for (Path chart : charts) {
      fresh.add(image(e.grid().name(), chart));
    }
    if (!fresh.isEmpty()) {
      b.append("**Charts** (the runner's comparisons: test accuracy vs epoch and vs bytes delivered, test loss):\n\n");
      for (String line : fresh) {
        b.append(line).append("\n\n");
      }
    }
    List<String> keptCharts = kept.isEmpty() ? List.of() : keptCharts(previous, fresh);
    if (!keptCharts.isEmpty()) {
      b.append("The kept rows' charts, as the previous version of this section had them:\n\n");
      for (String line : keptCharts) {
        b.append(line).append("\n\n");
      }
    }
  }

  /**
   * The previous version's chart lines whose image still exists beside the document and that no chart drawn now
   * replaces (a chart of the same file name shows the regenerated runs instead).
   */
  private List<String> keptCharts(PreviousSection previous, List<String> fresh) {
    Set<String> freshLinks = new HashSet<>();
    for (String line : fresh) {
      freshLinks.add(PreviousSection.imageLink(line));
    }
    List<String> out = new ArrayList<>();
    for (String line : previous.chartLines()) {
      String link = PreviousSection.imageLink(line);
      if (!freshLinks.contains(link) && Files.isRegularFile(file.getParent().resolve(link))) {
        out.add(line);
      }
    }
    return out;
  }

  /** Which rows this invocation regenerated and which it kept, with what the previous version said of the latter. */
  private static void keptRowsNote(StringBuilder b, ExperimentEvidence e, List<String> kept, PreviousSection previous) {
    List<String> fresh = new ArrayList<>();
    for (List<String> key : AccuracyTable.keys(e)) {
      fresh.add("P = " + key.get(0) + " " + key.get(1));
    }
    List<String> old = new ArrayList<>();
    for (String row : kept) {
      List<String> c = PreviousSection.cells(row);
      old.add("P = " + c.get(0) + " " + c.get(1));
    }
    b.append("**Rows from two sources.** Regenerated from the runs in `").append(DocumentPaths.shown(e.directory()))
        .append("`: ").append(String.join(", ", fresh)).append(". Kept byte for byte from the previous version of "
            + "this section, their runs not being in that directory: ").append(String.join(", ", old))
        .append(". That version said of its runs:\n\n");
    for (String line : previous.about().split("\n", -1)) {
      b.append(line.isEmpty() ? ">" : "> " + line).append('\n');
    }
    if (!previous.command().isEmpty()) {
      b.append(">\n> Its command: `").append(previous.command()).append("`\n");
    }
    b.append('\n');
  }

  private void measuredSection(StringBuilder b, Claim claim, MeasuredOutput output, String table) {
    measuredSection(b, claim, output, table, "submit/run-local.sh ");
  }

  /** @param launcher what ran the recorded command: run-local.sh, or the network lab's netlab.sh */
  private void measuredSection(StringBuilder out, Claim claim, MeasuredOutput output, String table,
      String launcher) {
    StringBuilder b = new StringBuilder();
    b.append("## ").append(claim.title()).append("\n\n**Paper.** ").append(claim.paper()).append("\n\n")
        .append("**Ours.** `").append(DocumentPaths.shown(output.directory())).append("`\n\n").append(table)
        .append("**Command** (as recorded in environment.json):\n\n```bash\n");
    for (var entry : output.environment()) {
      b.append(launcher).append(DocumentPaths.commandLine(entry.path("command").asText())).append('\n');
    }
    b.append("```\n\n**Machine and load:**\n\n").append(MachineLines.markdown(output.environment())).append('\n');
    if (output.picture() != null) {
      b.append(image(claim.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'), output.picture()))
          .append("\n\n");
    }
    out.append(SectionLayout.laidOut(b.toString()));
  }

  private void notReproduced(StringBuilder b, Set<Claim> covered) {
    List<String> rows = new ArrayList<>();
    for (Claim claim : Claim.values()) {
      if (covered.contains(claim)) {
        continue;
      }
      if (claim == Claim.COMPRESSOR_EVALUATION) {
        rows.add("| " + claim.title() + " | `" + Claim.EVALUATION_COMMAND + "`, then `--evaluation DIR` | – |");
      } else if (claim == Claim.LAB_TIME_TO_ACCURACY) {
        rows.add("| " + claim.title() + " | `" + Claim.LAB_TIME_TO_ACCURACY_COMMAND + "`, then "
            + "`--lab-time-to-accuracy DIR` | about 30 min |");
      } else if (claim == Claim.LAB_DDP_TIME_TO_ACCURACY) {
        rows.add("| " + claim.title() + " | `" + Claim.LAB_DDP_TIME_TO_ACCURACY_COMMAND + "`, then "
            + "`--ddp-time-to-accuracy DIR` | about 20 min |");
      } else if (claim == Claim.TIME_TO_ACCURACY) {
        rows.add("| " + claim.title() + " | `" + Claim.TIME_TO_ACCURACY_COMMAND + "`, then `--time-to-accuracy DIR` "
            + "| – |");
      } else {
        for (String grid : claim.grids()) {
          String runtime = shipped(grid).map(g -> g.expectedRuntime() == null ? "not stated"
                  : shortRuntime(g.expectedRuntime()))
              .orElse("(no " + Claim.shippedGridPath(grid) + " in this checkout)");
          rows.add("| " + claim.title() + " | `submit/run-local.sh experiment --grid " + Claim.shippedGridPath(grid)
              + " --out runs/" + grid + "`, then `--experiments runs/" + grid + "` | " + runtime + " |");
        }
      }
    }
    if (rows.isEmpty()) {
      return;
    }
    b.append("## Not reproduced here\n\nNo output was given for these claims. Each is produced by the command "
        + "shown; then pass its directory to `reproduction`.\n\n| claim | command | expected runtime |\n|---|---|---|\n");
    for (String row : rows) {
      b.append(row).append('\n');
    }
    b.append('\n');
  }

  /** The chart copied (scaled) into the images directory, as a Markdown image linked relative to the document. */
  private String image(String prefix, Path chart) {
    String name = prefix + "-" + chart.getName();
    for (int i = 2; !imageNames.add(name); i++) {
      name = prefix + "-" + i + "-" + chart.getName();
    }
    java.nio.file.Path target = images.resolve(name);
    Figures.copyScaled(chart, target, conf);
    String link = file.getParent().relativize(target).toString().replace('\\', '/');
    return "![" + prefix + ": " + chart.getName() + "](" + link + ")";
  }

  /** A grid's expected_runtime up to its first sentence's end (the rest says how it was estimated). */
  static String shortRuntime(String text) {
    int end = text.indexOf(". ");
    return (end < 0 ? text : text.substring(0, end)).replaceAll("\\.$", "");
  }

  private static boolean publishedWorkers(String chartName) {
    for (int p : Published.DOWNLINK_RATIO.keySet()) {
      if (chartName.endsWith("-" + p + ".png")) {
        return true;
      }
    }
    return false;
  }

  private Optional<Grid> shipped(String name) {
    java.nio.file.Path p = grids.resolve(name + ".json");
    if (!Files.isRegularFile(p)) {
      return Optional.empty();
    }
    try {
      return Optional.of(Grid.read(p.toString(), conf));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Same points (names and settings), in the same order. */
  private static boolean sameRuns(Grid a, Grid b) {
    if (a.points().size() != b.points().size()) {
      return false;
    }
    for (int i = 0; i < a.points().size(); i++) {
      GridPoint p = a.points().get(i);
      GridPoint q = b.points().get(i);
      if (!p.name().equals(q.name()) || !Map.copyOf(p.settings()).equals(Map.copyOf(q.settings()))) {
        return false;
      }
    }
    return true;
  }
}
