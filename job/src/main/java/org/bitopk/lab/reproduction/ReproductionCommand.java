package org.bitopk.lab.reproduction;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.bitopk.job.BadInputException;
import org.bitopk.job.ExitCode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code reproduction}: writes REPRODUCTION.md from finished outputs (experiment directories, the compressor
 * evaluation, the time-to-accuracy comparison), so that the document can only say what the runs say. Every input
 * is read and checked before anything is written; a refusal is one line naming the directory or file, exit 2.
 */
@Command(name = "reproduction", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Writes REPRODUCTION.md from finished outputs: per published claim the paper's figure, ours "
        + "(recomputed from the runs' metric lines), the difference, the command that produced it, the machine and "
        + "its load, and the charts. Refuses unfinished runs, runs whose config.json is not their grid point, a "
        + "results.csv that disagrees with its runs, and outputs without environment.json or _SUCCESS.")
public final class ReproductionCommand implements Callable<Integer> {
  @Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--experiments", split = ",", paramLabel = "DIR",
      description = "Experiment directories written by the experiment command (any Hadoop FileSystem URI), "
          + "comma-separated. The claim is chosen by the grid's name.")
  List<String> experiments = new ArrayList<>();

  @Option(names = "--evaluation", paramLabel = "DIR",
      description = "Output of the compressor evaluation on real gradients (evaluation.csv, environment.json, "
          + "_SUCCESS).")
  String evaluation;

  @Option(names = "--time-to-accuracy", paramLabel = "DIR",
      description = "Output of the time-to-accuracy comparison with DL4J (time-to-accuracy.csv, "
          + "time-to-accuracy.png, environment.json, _SUCCESS).")
  String timeToAccuracy;

  @Option(names = "--lab-time-to-accuracy", paramLabel = "DIR",
      description = "Output of time-to-accuracy --rates on the network lab (time-to-accuracy.csv, links.csv, one "
          + "chart per rate, environment.json, _SUCCESS).")
  String labTimeToAccuracy;

  @Option(names = "--ddp-time-to-accuracy", paramLabel = "DIR",
      description = "Output of time-to-accuracy --rates on the network lab comparing bitopk with the ddp-* systems "
          + "(as --lab-time-to-accuracy): the section against PyTorch DDP.")
  String ddpTimeToAccuracy;

  @Option(names = "--out", required = true, paramLabel = "FILE",
      description = "The document to write, normally REPRODUCTION.md at the repository's top level.")
  String out;

  @Option(names = "--images", paramLabel = "DIR",
      description = "Where the charts go, linked relatively from FILE (default: job/experiments/figures next to "
          + "FILE when FILE's directory holds job/, else figures/ next to FILE).")
  String images;

  @Option(names = "--grids", paramLabel = "DIR",
      description = "The shipped grid files, for the commands and expected runtimes of the claims not reproduced "
          + "(default: job/experiments next to FILE, else job/experiments in the working directory).")
  String grids;

  @Option(names = "--update",
      description = "Merge into the existing FILE instead of replacing it: the sections of the outputs given here "
          + "replace those of the same claim or are added; the others are kept as they are (their outputs may be "
          + "on another machine); the header's command lists the old inputs and these. An equal-accuracy grid's "
          + "directory may hold only some of its points: the rows of the others are kept from the section being "
          + "replaced, with what it said of their runs, their runners' machine lines and its charts. Without "
          + "outputs, it lays the document out again (summary, each section's tables first) without changing a "
          + "figure.")
  boolean update;

  @Override
  public Integer call() {
    if (!update && experiments.isEmpty() && evaluation == null && timeToAccuracy == null
        && labTimeToAccuracy == null && ddpTimeToAccuracy == null) {
      throw new BadInputException("--experiments, --evaluation, --time-to-accuracy, --lab-time-to-accuracy or "
          + "--ddp-time-to-accuracy: at least one output is needed (or --update alone, to lay out an existing "
          + "document again)");
    }
    java.nio.file.Path file = java.nio.file.Path.of(out).toAbsolutePath().normalize();
    java.nio.file.Path top = file.getParent();
    if (!Files.isDirectory(top)) {
      throw new BadInputException("--out: the directory of " + out + " does not exist");
    }
    Figures.requireFileOrAbsent("--out", file);
    if (!update && Files.exists(file) && !DocumentUpdate.isOwn(read(file))) {
      // a hand-written file of the same name is the user's: never replaced
      throw new BadInputException("--out: " + out + " " + DocumentUpdate.NOT_OWN + "; move it away or name "
          + "another file");
    }
    java.nio.file.Path imageDir = images != null ? java.nio.file.Path.of(images)
        : Files.isDirectory(top.resolve("job")) ? top.resolve("job/experiments/figures") : top.resolve("figures");
    java.nio.file.Path gridDir = grids != null ? java.nio.file.Path.of(grids)
        : Files.isDirectory(top.resolve(Claim.SHIPPED_GRIDS)) ? top.resolve(Claim.SHIPPED_GRIDS)
        : java.nio.file.Path.of(Claim.SHIPPED_GRIDS);
    if (update && !Files.isRegularFile(file)) {
      throw new BadInputException("--update: " + out + " does not exist; leave --update out to write it");
    }
    String previous = update ? read(file) : "";
    if (update && !DocumentUpdate.isOwn(previous)) {
      throw new BadInputException("--update: " + out + " " + DocumentUpdate.NOT_OWN);
    }
    Configuration conf = new Configuration();
    List<ExperimentEvidence> evidence = new ArrayList<>();
    for (String dir : experiments) {
      evidence.add(ExperimentEvidence.read(dir, conf, update));
    }
    MeasuredOutput eval = evaluation == null ? null : MeasuredOutput.read("--evaluation", evaluation,
        EvaluationSection.CSV, EvaluationSection.COLUMNS, null, conf);
    MeasuredOutput tta = timeToAccuracy == null ? null : MeasuredOutput.read("--time-to-accuracy", timeToAccuracy,
        TimeToAccuracySection.CSV, TimeToAccuracySection.COLUMNS, TimeToAccuracySection.EARLIER_VERSIONS,
        TimeToAccuracySection.PNG, conf);
    LabTimeToAccuracySection lab = labTimeToAccuracy == null ? null
        : LabTimeToAccuracySection.read("--lab-time-to-accuracy", labTimeToAccuracy, conf);
    LabTimeToAccuracySection ddp = ddpTimeToAccuracy == null ? null : LabTimeToAccuracySection.read(
        LabTimeToAccuracySection.Kind.DDP, "--ddp-time-to-accuracy", ddpTimeToAccuracy, conf);
    String text = new ReproductionDocument(regenerateCommand(), file, imageDir, gridDir, conf,
        update ? SectionLayout.sections(previous) : java.util.Map.of())
        .render(evidence, eval, tta, lab, ddp);
    if (update) {
      try {
        text = DocumentUpdate.merge(previous, text, regenerateCommand());
      } catch (IllegalArgumentException e) {
        throw new BadInputException("--update: " + out + " " + e.getMessage());
      }
    }
    try {
      // not createTempFile, whose owner-only mode the document would keep: a new file takes the umask's mode
      java.nio.file.Path tmp = top.resolve("." + file.getFileName() + "." + UUID.randomUUID() + ".tmp");
      Files.writeString(tmp, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + out + ": " + e.getMessage(), e);
    }
    spec.commandLine().getOut().println("bitopk: wrote " + out + " from " + evidence.size() + " experiment(s)"
        + (eval == null ? "" : ", the compressor evaluation") + (tta == null ? "" : ", the time-to-accuracy comparison")
        + (lab == null ? "" : ", the time to accuracy on shaped links")
        + (ddp == null ? "" : ", the time to accuracy against PyTorch DDP")
        + "; charts in " + imageDir);
    spec.commandLine().getOut().flush();
    return ExitCode.OK;
  }

  private String read(java.nio.file.Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + out + ": " + e.getMessage(), e);
    }
  }

  /** This invocation as a command line, for the document's header. */
  private String regenerateCommand() {
    StringBuilder b = new StringBuilder("submit/run-local.sh reproduction");
    if (!experiments.isEmpty()) {
      b.append(" --experiments ").append(String.join(",", experiments));
    }
    if (evaluation != null) {
      b.append(" --evaluation ").append(evaluation);
    }
    if (timeToAccuracy != null) {
      b.append(" --time-to-accuracy ").append(timeToAccuracy);
    }
    if (labTimeToAccuracy != null) {
      b.append(" --lab-time-to-accuracy ").append(labTimeToAccuracy);
    }
    if (ddpTimeToAccuracy != null) {
      b.append(" --ddp-time-to-accuracy ").append(ddpTimeToAccuracy);
    }
    b.append(" --out ").append(out);
    if (images != null) {
      b.append(" --images ").append(images);
    }
    if (grids != null) {
      b.append(" --grids ").append(grids);
    }
    return DocumentPaths.commandLine(b.toString());
  }
}
