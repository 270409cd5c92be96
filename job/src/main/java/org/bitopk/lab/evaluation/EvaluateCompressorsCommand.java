package org.bitopk.lab.evaluation;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.KRounding;
import org.bitopk.job.capture.CaptureFiles;
import org.bitopk.job.capture.CapturedVector;
import org.bitopk.job.output.AtomicFiles;
import org.bitopk.job.output.MachineEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code evaluate-compressors --captures RUN_DIR [--compressors SPECS] [--density RHO] [--repeats N] --out DIR}:
 * runs every compressor on every vector a run captured with {@code train --capture-vectors} and writes, per round
 * and compressor, target and achieved k, time per element and the relative error next to exact TopK's
 * ({@link CompressorEvaluation}) into {@code DIR/evaluation.csv}, {@code DIR/evaluation.md} and
 * {@code DIR/evaluation.png}, the machine and its
 * load into {@code DIR/environment.json}, and {@code DIR/_SUCCESS} last.
 *
 * <p>Exit codes: 0 done; 2 bad input, nothing measured (no captures, a truncated, damaged or foreign file, an
 * unknown compressor, a bad option; one {@code bitopk:} line names it); 1 an I/O failure while writing.
 */
@Command(name = "evaluate-compressors", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs compressors on the compensated vectors a run captured (train --capture-vectors) and "
        + "measures achieved k, time per element and relative error against exact TopK: evaluation.csv, "
        + "evaluation.md, evaluation.png, environment.json and _SUCCESS in --out."})
public final class EvaluateCompressorsCommand implements Callable<Integer> {
  /** Exit code for input the command cannot use. */
  static final int BAD_INPUT = 2;
  static final int FAILED = 1;
  /** A fixed threshold calibrated on the data: see {@link #AUTO_THRESHOLD}. */
  static final String AUTO_THRESHOLD = "threshold:tau=auto";
  /** The default compressors: every one of the field, SIDCo with 1, 3 and adaptive stages. */
  static final List<String> DEFAULT_COMPRESSORS = List.of("topk", "gaussiank", "sidco-e:stages=1",
      "sidco-e:stages=3", "sidco-e", "sidco-gp:stages=1", "sidco-gp:stages=3", "sidco-gp", "sidco-gamma-gp:stages=1",
      "sidco-gamma-gp:stages=3", "sidco-gamma-gp", "dgc", "randomk", AUTO_THRESHOLD);

  @Spec
  private CommandSpec spec;

  @Option(names = "--captures", required = true, paramLabel = "RUN_DIR",
      description = "A run directory holding captures/ (or that captures directory), any Hadoop FileSystem URI.")
  private String captures;

  @Option(names = "--compressors", split = ",", paramLabel = "SPECS",
      description = "Compressors, comma-separated: any of the train --uplink texts, and "
          + "threshold:tau=auto (tau just below the k-th largest |c| of the first round's first worker, then kept "
          + "fixed for every round). Exact topk is always evaluated (the ratios refer to it). Default: topk, "
          + "gaussiank, sidco-e/-gp/-gamma-gp with stages 1, 3 and adaptive, dgc, randomk, threshold:tau=auto.")
  private List<String> compressors;

  @Option(names = "--density", paramLabel = "RHO",
      description = "Density in (0, 1]: k = max(1, floor(rho*d)) (default: ${DEFAULT-VALUE}).")
  private double density = 0.001;

  @Option(names = "--repeats", paramLabel = "N",
      description = "Timed passes over a round's vectors; the median is reported (default: ${DEFAULT-VALUE}).")
  private int repeats = 5;

  @Option(names = "--warmup", paramLabel = "N",
      description = "Untimed calls per vector and compressor before timing (default: ${DEFAULT-VALUE}).")
  private int warmup = 2;

  @Option(names = "--out", required = true, paramLabel = "DIR",
      description = "Output directory (any Hadoop FileSystem URI); created, its evaluation files replaced.")
  private String out;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    MachineEnvironment environment = MachineEnvironment.start(commandLine());
    Configuration conf = new Configuration();
    SortedMap<Integer, List<CapturedVector>> rounds;
    List<String> texts;
    try {
      requireOptions();
      texts = compressorTexts();
      for (String text : texts) {
        if (!text.equalsIgnoreCase(AUTO_THRESHOLD)) {
          CompressorSpec.parse(text);
        }
      }
      rounds = load(conf);
    } catch (IllegalArgumentException e) {
      err.println("bitopk: " + e.getMessage());
      err.flush();
      return BAD_INPUT;
    } catch (IOException e) {
      err.println("bitopk: --captures " + captures + ": cannot read: " + e.getMessage());
      err.flush();
      return FAILED;
    }

    List<CapturedVector> firstRound = rounds.get(rounds.firstKey());
    int d = firstRound.get(0).dimension();
    int k = KRounding.FLOOR.targetK(density, d);
    String thresholdNote = null;
    List<CompressorSpec> specs = new ArrayList<>();
    for (String text : texts) {
      if (text.equalsIgnoreCase(AUTO_THRESHOLD)) {
        float tau = CompressorEvaluation.thresholdForK(firstRound.get(0).valuesUnsafe(), Math.min(k, d));
        CompressorSpec fixed = CompressorSpec.parse("threshold:tau=" + tau);
        thresholdNote = String.format(Locale.ROOT, "threshold:tau=auto became %s: just below the k-th largest |c| "
            + "of worker %d in round %d, then fixed for every round, as a user would tune a fixed threshold once.",
            fixed, firstRound.get(0).worker(), firstRound.get(0).round());
        specs.add(fixed);
      } else {
        specs.add(CompressorSpec.parse(text));
      }
    }

    List<CompressorEvaluation.Row> rows = new ArrayList<>();
    Map<Integer, Float> learningRates = new TreeMap<>();
    try {
      // The JIT compiles each compressor on its first calls: without this untimed pass, the first round's figures
      // (and the first compressor's most) would include compilation (5 ns/element instead of 1.5 for TopK).
      CompressorEvaluation.round(rounds.firstKey(), firstRound, specs, k, 1, 1);
      for (Map.Entry<Integer, List<CapturedVector>> round : rounds.entrySet()) {
        rows.addAll(CompressorEvaluation.round(round.getKey(), round.getValue(), specs, k, warmup, repeats));
        learningRates.put(round.getKey(), round.getValue().get(0).learningRate());
      }
    } catch (IllegalArgumentException e) {
      err.println("bitopk: " + e.getMessage());
      err.flush();
      return BAD_INPUT;
    }

    CapturedVector any = firstRound.get(0);
    EvaluationOutput.Context context = new EvaluationOutput.Context(captures, any.workers(), any.density(), density,
        warmup, repeats, learningRates, thresholdNote);
    try {
      Path dir = new Path(out);
      FileSystem fs = dir.getFileSystem(conf);
      dir = fs.makeQualified(dir);
      fs.delete(new Path(dir, "_SUCCESS"), false);   // a rerun that fails must not look finished
      fs.mkdirs(dir);
      byte[] csv = EvaluationOutput.csv(rows);
      byte[] md = EvaluationOutput.markdown(rows, context);
      AtomicFiles.write(fs, new Path(dir, "evaluation.csv"), o -> o.write(csv));
      AtomicFiles.write(fs, new Path(dir, "evaluation.md"), o -> o.write(md));
      byte[] png = EvaluationChart.png(rows);
      AtomicFiles.write(fs, new Path(dir, "evaluation.png"), o -> o.write(png));
      environment.finishInto(fs, dir);
      AtomicFiles.write(fs, new Path(dir, "_SUCCESS"), o -> { });
      PrintWriter stdout = spec.commandLine().getOut();
      stdout.print(new String(md, java.nio.charset.StandardCharsets.UTF_8));
      stdout.println("wrote " + dir + "/evaluation.csv (" + rows.size() + " rows), evaluation.md, evaluation.png, "
          + "environment.json");
      stdout.flush();
      return 0;
    } catch (IOException | UncheckedIOException e) {
      err.println("bitopk: --out " + out + ": " + e.getMessage());
      err.flush();
      return FAILED;
    }
  }

  private void requireOptions() {
    if (!(density > 0 && density <= 1)) {
      throw new IllegalArgumentException("--density: expected a density in (0, 1], got " + density);
    }
    if (repeats < 1) {
      throw new IllegalArgumentException("--repeats: expected an integer >= 1, got " + repeats);
    }
    if (warmup < 0) {
      throw new IllegalArgumentException("--warmup: expected an integer >= 0, got " + warmup);
    }
    if (captures.isBlank() || out.isBlank()) {
      throw new IllegalArgumentException((captures.isBlank() ? "--captures" : "--out") + ": expected a directory, "
          + "got ''");
    }
  }

  /** The texts asked for, exact topk first when it was not among them; duplicates refused. */
  private List<String> compressorTexts() {
    List<String> asked = compressors == null ? DEFAULT_COMPRESSORS : compressors;
    List<String> texts = new ArrayList<>();
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (String raw : asked) {
      String text = raw.trim();
      if (text.isEmpty()) {
        throw new IllegalArgumentException("--compressors: an empty entry in '" + String.join(",", asked) + "'");
      }
      String key;
      try {
        key = text.equalsIgnoreCase(AUTO_THRESHOLD) ? AUTO_THRESHOLD : CompressorSpec.parse(text).toString();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--compressors: " + e.getMessage(), e);
      }
      if (!seen.add(key)) {
        throw new IllegalArgumentException("--compressors: '" + text + "' is listed twice");
      }
      texts.add(text);
    }
    if (!seen.contains("topk")) {
      texts.add(0, "topk");
    }
    return texts;
  }

  /** Every captured vector, by round; all files are read and checked before anything is measured. */
  private SortedMap<Integer, List<CapturedVector>> load(Configuration conf) throws IOException {
    Path dir = new Path(captures);
    FileSystem fs = dir.getFileSystem(conf);
    dir = fs.makeQualified(dir);
    if (!fs.exists(dir)) {
      throw new IllegalArgumentException("--captures " + captures + ": no such directory");
    }
    SortedMap<Integer, List<CapturedVector>> rounds = new TreeMap<>();
    Integer workers = null;
    for (Map.Entry<Integer, List<Path>> round : CaptureFiles.list(fs, dir).entrySet()) {
      List<CapturedVector> vectors = new ArrayList<>();
      for (Path file : round.getValue()) {
        CapturedVector v = CaptureFiles.read(fs, file);
        if (workers != null && v.workers() != workers) {
          throw new IllegalArgumentException(file + ": a run of " + v.workers() + " workers, the other captures "
              + "are of " + workers);
        }
        workers = v.workers();
        vectors.add(v);
      }
      rounds.put(round.getKey(), vectors);
    }
    return rounds;
  }

  private String commandLine() {
    return String.join(" ", spec.commandLine().getParseResult().originalArgs());
  }
}
