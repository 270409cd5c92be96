package org.bitopk.cli;

import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.config.TrainOptions;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.spark.SparkSetup;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/** {@code train}: the default command. Every flag maps to one {@link TrainingConfig} setting. */
@Command(name = "train", mixinStandardHelpOptions = true, sortOptions = false, versionProvider = Version.class,
    description = {
        "Trains a model data-parallel on Spark: executors are workers (gradient, error feedback, uplink",
        "compression), the driver is the parameter server (average, server residual, downlink compression,",
        "one broadcast per iteration). Writes config.json, metrics/*.jsonl, the model, summary.txt and",
        "_SUCCESS into the output directory (any Hadoop FileSystem URI)."},
    footer = {"", "Without arguments: Fashion-MNIST MLP, bidirectional TopK (density 0.01 up and down), 4 workers,",
        "1 epoch, into runs/<timestamp>. Other command: report --runs DIR1,DIR2,... --out FILE.png",
        "Exit codes: 0 done, 1 the run failed, 2 bad input or settings (nothing written), 130/143 interrupted",
        "(SIGINT/SIGTERM; checkpoints kept). Spark's and DL4J's messages go to <output>/logs/driver-<time>.log."})
public final class TrainCommand extends TrainOptions implements Callable<Integer> {
  /** The context a test or an embedding application runs it on; without one, the command starts its own. */
  private final Optional<JavaSparkContext> provided;

  /** For the CLI: starts its own SparkContext. */
  public TrainCommand() {
    this.provided = Optional.empty();
  }

  /** For tests and embedding: runs on an existing context, which it leaves running. */
  public TrainCommand(JavaSparkContext existing) {
    this.provided = Optional.of(existing);
  }

  /**
   * The settings, then the run's steps ({@link TrainLaunch#run}); a failure is reported in one line, and whatever the
   * run took (Spark, the output directory's lease, the driver log's copy) is released however it ends.
   */
  @Override
  public Integer call() {
    TrainLaunch launch = new TrainLaunch(settings(), provided, spec.commandLine(), verbose());
    try {
      return launch.run();
    } catch (Throwable failure) {
      return launch.failed(failure);
    } finally {
      launch.release();
    }
  }

  /** The settings the flags give; a model file is read before Spark starts. */
  private TrainingConfig settings() {
    try {
      // with the context's Hadoop settings, or those Spark would load
      return toConfig(provided.map(JavaSparkContext::hadoopConfiguration).orElseGet(SparkSetup::hadoopConfiguration));
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }
}
