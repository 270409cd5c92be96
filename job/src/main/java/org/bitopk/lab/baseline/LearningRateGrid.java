package org.bitopk.lab.baseline;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.datasets.TrainTest;
import org.bitopk.job.output.AtomicFiles;

/**
 * {@code time-to-accuracy --lr-grid} and {@code --lr-choice}: every system trained at every rate of the grid, counted
 * in rounds to the target (no clock, so neither links nor load change the choice), and the choice read back for a
 * timed comparison. Every refusal is an {@link IllegalArgumentException} whose message names the flag.
 */
final class LearningRateGrid {
  private final List<Double> rates;
  private final long rounds;

  LearningRateGrid(List<Double> rates, long rounds) {
    this.rates = List.copyOf(rates);
    this.rounds = rounds;
  }

  /** The grid flags against each other: {@code lrGrid}, {@code lrChoice} and {@code linkRates} may be absent (null). */
  static void check(List<Double> lrGrid, long gridRounds, String lrChoice, List<String> linkRates) {
    if (gridRounds < 1) {
      throw new IllegalArgumentException("--grid-rounds: expected a number of rounds >= 1, got " + gridRounds);
    }
    if (lrGrid == null) {
      return;
    }
    if (lrGrid.isEmpty() || lrGrid.stream().anyMatch(lr -> !(lr > 0) || Double.isInfinite(lr))) {
      throw new IllegalArgumentException("--lr-grid: expected learning rates > 0, got " + lrGrid);
    }
    if (new LinkedHashSet<>(lrGrid).size() != lrGrid.size()) {
      throw new IllegalArgumentException("--lr-grid: a rate is listed twice: " + lrGrid);
    }
    if (lrChoice != null) {
      throw new IllegalArgumentException("--lr-grid: chooses the rates that --lr-choice reads; give one of them");
    }
    if (linkRates != null) {
      throw new IllegalArgumentException("--lr-grid: counts rounds, not seconds, so links do not change it; "
          + "leave --rates out");
    }
  }

  /** Every system's learning rate from the {@code --lr-choice} file; at least one chosen system must be in it. */
  static LearningRateChoice read(Configuration conf, String lrChoice, List<ComparedSystem> chosen) throws IOException {
    Path file = new Path(lrChoice);
    FileSystem fs = file.getFileSystem(conf);
    if (!fs.isFile(file)) {
      throw new IllegalArgumentException("--lr-choice: " + lrChoice + " is not a file; expected an "
          + LearningRateChoice.FILE + " written by time-to-accuracy --lr-grid");
    }
    String text;
    try (InputStream in = fs.open(file)) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    LearningRateChoice choice = LearningRateChoice.parse("--lr-choice: " + lrChoice, text);
    if (chosen.stream().noneMatch(system -> choice.of(system.name()).isPresent())) {
      throw new IllegalArgumentException("--lr-choice: " + lrChoice + " has a learning rate for none of the systems "
          + "(it has " + String.join(", ", choice.systems().keySet()) + "); run --lr-grid with them");
    }
    return choice;
  }

  /**
   * Every system at every rate; each point's trace into {@code OUT/lr-grid/}, bitopk's run directories removed once
   * read, and the choice so far written after every system.
   */
  LearningRateChoice run(JavaSparkContext sc, ComparisonSettings settings, List<ComparedSystem> chosen,
      TrainTest loaded, Path dir, FileSystem fs, PrintWriter console) throws IOException {
    LearningRateChoice.Builder choice = new LearningRateChoice.Builder(settings.target(), rounds);
    Path gridDir = new Path(dir, "lr-grid");
    int n = 0;
    for (ComparedSystem system : chosen) {
      List<LearningRateChoice.Point> points = new ArrayList<>();
      for (double lr : rates) {
        n++;
        String label = system.name() + "-lr-" + ComparisonTable.number(lr);
        String prefix = String.format(Locale.ROOT, "[%d/%d] %s: ", n, chosen.size() * rates.size(), label);
        SystemResult result;
        try {
          result = system.run(new ComparedSystem.Context(sc, settings.forGrid(rounds).withLearningRate(lr),
              loaded, gridDir, console, label));
        } catch (Exception | LinkageError e) {
          result = SystemResult.failed(label, "did not train", Trace.empty(),
              e.getClass().getName() + ": " + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
        }
        Path runDir = new Path(gridDir, label);
        if (fs.exists(runDir)) {
          fs.delete(runDir, true);
        }
        AtomicFiles.writeText(fs, new Path(gridDir, "trace-" + label + ".csv"),
            ComparisonTable.traceCsv(result.labelled(label, "")));
        LearningRateChoice.Point point = LearningRateChoice.point(lr, result.trace(), settings.target());
        points.add(point);
        console.println(prefix + (result.failure() == null ? "" : "FAILED: " + result.failure() + "; ")
            + point.text(rounds));
        console.flush();
      }
      choice.add(system.name(), points);
      // the choice so far after every system, as the table is: the systems finished count even if the rest do not
      AtomicFiles.writeText(fs, new Path(dir, LearningRateChoice.FILE), choice.build().toJson());
    }
    return choice.build();
  }
}
