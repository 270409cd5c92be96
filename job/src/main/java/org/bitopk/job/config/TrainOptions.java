package org.bitopk.job.config;

import static org.bitopk.job.config.TrainSettings.*;

import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.bitopk.job.problem.network.ModelChoice;
import org.bitopk.job.problem.network.ModelSpec;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The train flags as picocli options, made of the settings' declarations ({@link TrainSettings}), and their
 * reading into one {@link TrainingConfig}, refusing settings that do not apply. The {@code train} command adds
 * running to these; code that holds settings as a map reads them through {@link FlagValues#configOf}.
 */
@Command(modelTransformer = TrainOptions.SettingOptions.class)
public class TrainOptions {
  @Spec
  protected CommandSpec spec;

  /** Whether the console shows Spark's, DL4J's and Hadoop's messages and a failure's full trace. */
  protected boolean verbose() {
    return value(VERBOSE);
  }

  /**
   * The run's settings from the parsed flags.
   *
   * @param hadoop the file systems a model file of {@code --model} is read with (those Spark will have)
   * @throws IllegalArgumentException naming the flag whose value is refused
   */
  public TrainingConfig toConfig(Configuration hadoop) {
    refuseSettingsThatDoNotApply();
    String split = value(SPLIT);
    if (!split.equals("iid") && !split.equals("non-iid")) {
      throw new IllegalArgumentException(SPLIT.flag() + ": expected iid or non-iid, got '" + split + "'");
    }
    Optional<TableInput> tableInput = tableInput();
    boolean overwrite = value(OVERWRITE);
    String output = value(OUTPUT);
    // each setter refuses its own value; they are called in one fixed order, so of two bad values the same is named
    TrainingConfigBuilder b = TrainingConfig.builder().dataset(DATASET.orDefault(given(DATASET)));
    tableInput.ifPresentOrElse(b::table, () -> given(DATA).ifPresent(b::data));
    given(MODEL).ifPresent(model -> b.model(ModelChoice.parse(model, hadoop)));
    b.mode(value(MODE)).tasks(value(TASKS)).uplink(value(UPLINK)).downlink(value(DOWNLINK))
        .densityUp(value(DENSITY_UP)).densityDown(value(DENSITY_DOWN));
    given(K_UP).ifPresent(b::kUp);
    given(K_DOWN).ifPresent(b::kDown);
    given(X0).ifPresent(b::x0);
    b.kRounding(value(K_ROUNDING)).valuesUp(value(VALUES_UP)).valuesDown(value(VALUES_DOWN))
        .lrDecay(value(LR_DECAY)).momentum(value(MOMENTUM))
        .batchSize(value(BATCH_SIZE)).epochs(value(EPOCHS)).maxIterations(value(MAX_ITERATIONS))
        .nonIid(split.equals("non-iid")).seed(value(SEED));
    given(OUTPUT).ifPresent(b::output);
    b.overwrite(overwrite).evalEvery(value(EVAL_EVERY))
        .consistencyCheckEvery(value(CONSISTENCY_CHECK_EVERY)).snapshotEvery(value(SNAPSHOT_EVERY))
        .updateWindow(value(UPDATE_WINDOW)).xi(value(XI));
    given(CAPTURE_VECTORS).ifPresent(b::captureVectors);
    b.quiet(value(QUIET)).checkpointEvery(value(CHECKPOINT_EVERY))
        .uplinkFeedback(org.bitopk.job.engine.UplinkFeedback.parse(value(UPLINK_FEEDBACK)));
    given(DOWNLINK_SCHEME).ifPresent(scheme -> b.downlinkScheme(DownlinkScheme.parse(scheme)));
    given(UP_MEMORY_RATE).ifPresent(b::upMemoryRate);
    given(DOWN_MEMORY_RATE).ifPresent(b::downMemoryRate);
    String resume = value(RESUME);
    if (resume != null) {
      if (resume.isBlank()) {
        throw new IllegalArgumentException(RESUME.flag() + ": expected the directory of the run to continue, got ''");
      }
      if (overwrite) {
        throw new IllegalArgumentException(OVERWRITE.flag() + " cannot be combined with --resume: a resume "
            + "continues the run in " + resume + ", --overwrite would remove it");
      }
      if (output != null && !output.equals(resume)) {
        throw new IllegalArgumentException(RESUME.flag() + ": continues the run in " + resume + " in place; --output "
            + output + " cannot differ");
      }
      b.output(resume).overwrite(false).resume(true);
    }
    given(WORKERS).ifPresent(b::workers);
    given(MASTER).ifPresent(b::master);
    given(LR).ifPresent(b::learningRate);
    return b.build();
  }

  /** The table input the flags describe; empty when they name a data set. */
  private Optional<TableInput> tableInput() {
    String data = value(DATA);
    String dataFormat = value(DATA_FORMAT);
    String table = value(TABLE);
    Optional<TableInput.Prefixed> prefixed = given(DATA).flatMap(TableInput::splitPrefixed);
    String format = dataFormat;
    String path = data;
    if (prefixed.isPresent()) {
      if (dataFormat != null && !dataFormat.equalsIgnoreCase(prefixed.get().format())) {
        throw new IllegalArgumentException(DATA_FORMAT.flag() + " " + dataFormat + " contradicts --data " + data);
      }
      format = prefixed.get().format();
      path = prefixed.get().path();
    }
    Double testFraction = value(TEST_FRACTION);
    Double featureScale = value(FEATURE_SCALE);
    if (format == null && table == null) {
      for (TrainSetting<String> tableOnly : List.of(FEATURES, LABEL, INPUT_SHAPE, TEST_DATA, NORMALIZE)) {
        if (value(tableOnly) != null) {
          throw new IllegalArgumentException(tableOnly.flag() + ": only for table input (--data-format or --table)");
        }
      }
      if (testFraction != null || featureScale != null) {
        throw new IllegalArgumentException((testFraction != null ? TEST_FRACTION.flag() : FEATURE_SCALE.flag())
            + ": only for table input (--data-format or --table)");
      }
      return Optional.empty();
    }
    if (value(DATASET) != null) {
      throw new IllegalArgumentException(DATASET.flag() + ": names a built-in data set; not with "
          + "--data-format/--table");
    }
    TableInput.Builder t = TableInput.builder();
    if (table != null) {
      if (format != null || data != null) {
        throw new IllegalArgumentException(TABLE.flag() + ": reads a catalog table; --data/--data-format cannot be "
            + "given as well");
      }
      t.table(table);
    } else {
      t.path(format, path);
    }
    given(FEATURES).ifPresent(t::features);
    given(LABEL).ifPresent(t::label);
    given(INPUT_SHAPE).ifPresent(t::inputShape);
    given(TEST_DATA).ifPresent(t::testData);
    given(TEST_FRACTION).ifPresent(t::testFraction);
    given(NORMALIZE).ifPresent(t::normalize);
    return Optional.of(t.featureScale(FEATURE_SCALE.orDefault(given(FEATURE_SCALE))).build());
  }

  /**
   * Settings that do not apply to the chosen mode or problem are refused, not silently ignored: a user who
   * sets them expects an effect. A mode's compressor and density may still be given with the value the mode
   * implies ({@code none}, 1.0): that is what a run's own config.json records, and it states nothing
   * contrary. Everything else, the default value included ({@code --mode dense --uplink topk}), is refused.
   */
  private void refuseSettingsThatDoNotApply() {
    String dataset = value(DATASET);
    boolean counterexample = org.bitopk.job.problem.quadratic.CounterexampleSetting.names(dataset);
    Mode mode = value(MODE);
    boolean uplinkNone = value(UPLINK).toString().equals("none");
    boolean downlinkNone = value(DOWNLINK).toString().equals("none");
    if (mode == Mode.DENSE) {
      String why = "does not apply to --mode dense, which sends every gradient entry uncompressed both ways";
      refuseUnless(UPLINK, uplinkNone, why);
      refuseUnless(DOWNLINK, downlinkNone, why);
      refuseUnless(DENSITY_UP, value(DENSITY_UP) == 1.0, why);
      refuseUnless(DENSITY_DOWN, value(DENSITY_DOWN) == 1.0, why);
      refuseUnless(K_ROUNDING, false, why + " (there is no k to round)");
      refuseUnless(K_UP, false, why);
      refuseUnless(K_DOWN, false, why);
    } else if (mode == Mode.UNIDIRECTIONAL) {
      String why = "does not apply to --mode unidirectional, whose server sends the average uncompressed";
      refuseUnless(DOWNLINK, downlinkNone, why);
      refuseUnless(DENSITY_DOWN, value(DENSITY_DOWN) == 1.0, why);
      refuseUnless(K_DOWN, false, why);
    }
    Integer kUp = value(K_UP);
    if (kUp != null) {
      refuseUnless(DENSITY_UP, false, K_UP.flag() + " " + kUp + " gives the uplink k already; give one of the two");
    }
    Integer kDown = value(K_DOWN);
    if (kDown != null) {
      refuseUnless(DENSITY_DOWN, false, K_DOWN.flag() + " " + kDown + " gives the downlink k already; give one of "
          + "the two");
    }
    if (!counterexample) {
      refuseUnless(X0, false, "only for --dataset counterexample[:options], whose starting point it is");
    }
    if (counterexample) {
      String why = "does not apply to --dataset counterexample (quadratics, one worker per centre, full gradients, "
          + "no data files, no network)";
      for (TrainSetting<?> setting : List.of(MODEL, DATA, SPLIT, BATCH_SIZE)) {
        refuseUnless(setting, false, why);
      }
    } else if (org.bitopk.job.problem.synthetic.SyntheticGradientSetting.names(dataset)) {
      String why = "does not apply to --dataset " + dataset + " (a benchmark problem: generated gradients, one "
          + "round per epoch, no data files, no network)";
      for (TrainSetting<?> setting : List.of(MODEL, DATA, SPLIT, BATCH_SIZE)) {
        refuseUnless(setting, false, why);
      }
    } else if (dataset != null && (dataset.equals("synthetic") || dataset.startsWith("synthetic:"))) {
      refuseUnless(DATA, false, "does not apply to --dataset " + dataset + ", which is generated, not read "
          + "(its options go into the dataset text, e.g. synthetic:n=2000,shape=1x28x28)");
    }
  }

  /** Refuses {@code setting} when it was given (on the command line or in a config file) and {@code fine} is false. */
  private void refuseUnless(TrainSetting<?> setting, boolean fine, String why) {
    if (fine) {
      return;
    }
    String flag = setting.flag();
    boolean onCommandLine = spec.commandLine().getParseResult() != null
        && spec.commandLine().getParseResult().hasMatchedOption(flag);
    ConfigFile file = spec.defaultValueProvider() instanceof ConfigFile c ? c : null;
    boolean inFile = file != null && file.sets(setting.key());
    if (!onCommandLine && !inFile) {
      return;
    }
    throw new IllegalArgumentException(flag + " " + quoted(setting) + (onCommandLine ? "" : " (from " + file.uri()
        + ")") + ": " + why + "; leave it out");
  }

  /** The value of {@code setting} as messages quote it: a choice by its name. */
  private <T> String quoted(TrainSetting<T> setting) {
    return String.valueOf(given(setting).map(setting::recordedForm).orElse(null));
  }

  /** The parsed value of {@code setting}: given, from a config file, or its starting value (null for none). */
  private <T> @Nullable T value(TrainSetting<T> setting) {
    return setting.type().cast(spec.findOption(setting.flag()).getValue());
  }

  /** The value of a setting without a starting value: given or from a config file; empty when neither. */
  private <T> Optional<T> given(TrainSetting<T> setting) {
    return Optional.ofNullable(value(setting));
  }

  /**
   * Adds an option for every setting to the command picocli made of the annotations; --help and --version,
   * declared first, are listed after them.
   */
  public static final class SettingOptions implements CommandLine.IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec command) {
      List<OptionSpec> declared = List.copyOf(command.options());
      declared.forEach(command::remove);
      TrainSettings.ALL.forEach(setting -> command.addOption(setting.option()));
      declared.forEach(command::addOption);
      return command;
    }
  }
}
