package org.bitopk.job.config;

import static org.bitopk.job.config.TrainSettings.*;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import picocli.CommandLine;

/**
 * A run's settings as train flag names (without dashes) to values, both ways: a {@code config.json} or a grid point
 * read into a {@link TrainingConfig} ({@link #configOf}) and a config written back as such a map ({@link #of},
 * {@link #recorded}).
 */
public final class FlagValues {
  /** Flags that say where and how to run rather than what: not part of a run's settings. */
  private static final Set<String> RUNNER_KEYS = runnerKeys();

  private FlagValues() {}

  /**
   * The config of a run given as train flag names (without dashes) to value texts, as in a {@code config.json}
   * or a grid point: the same parsing, defaults and validation as the command line.
   *
   * @param hadoop the file systems a model file is read with
   * @throws IllegalArgumentException naming the key that is unknown or whose value does not parse
   */
  public static TrainingConfig configOf(Map<String, String> settings, Configuration hadoop) {
    TrainOptions options = new TrainOptions();
    CommandLine line = new CommandLine(options);
    for (String key : settings.keySet()) {
      if (line.getCommandSpec().findOption(TrainFlags.flag(key)) == null || RUNNER_KEYS.contains(key)) {
        throw new IllegalArgumentException("unknown key '" + key + "' (keys are train flag names without dashes, "
            + "e.g. " + LR.key() + ", " + DENSITY_UP.key() + "; " + String.join(", ", RUNNER_KEYS)
            + " are not settings of a run)");
      }
    }
    line.setDefaultValueProvider(ConfigFile.of(settings));
    try {
      line.parseArgs();
    } catch (CommandLine.ParameterException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    return options.toConfig(hadoop);
  }

  /** The settings as flag name → value (resolved defaults included; output omitted when not given). */
  public static Map<String, Object> of(TrainingConfig c) {
    Map<String, Object> m = new LinkedHashMap<>();
    putGiven(m, MASTER, c.master());
    putGiven(m, DATASET, c.table().isEmpty() ? Optional.of(c.dataset()) : Optional.empty());
    putGiven(m, DATA, c.table().isEmpty() ? c.data() : Optional.ofNullable(c.table().get().path()));
    m.put(MODEL.key(), c.hasNoNetwork() ? null : c.model().flagValue());   // a file's network: its configuration too
    put(m, MODE, c.mode());
    put(m, WORKERS, c.workers());
    put(m, TASKS, c.tasks());
    put(m, UPLINK, c.uplink());
    put(m, DOWNLINK, c.downlink());
    put(m, DENSITY_UP, c.densityUp());
    put(m, DENSITY_DOWN, c.densityDown());
    putGiven(m, K_UP, c.kUp().stream().boxed().findFirst());
    putGiven(m, K_DOWN, c.kDown().stream().boxed().findFirst());
    put(m, K_ROUNDING, c.kRounding());
    put(m, VALUES_UP, c.valuesUp());
    put(m, VALUES_DOWN, c.valuesDown());
    put(m, LR, c.learningRate());
    put(m, LR_DECAY, c.lrDecay());
    put(m, MOMENTUM, c.momentum());
    put(m, UPLINK_FEEDBACK, c.uplinkFeedback().cliName());
    put(m, DOWNLINK_SCHEME, c.downlinkScheme().cliName());
    putGiven(m, UP_MEMORY_RATE, c.upMemoryRate().stream().boxed().findFirst());
    putGiven(m, DOWN_MEMORY_RATE, c.downMemoryRate().stream().boxed().findFirst());
    put(m, BATCH_SIZE, c.batchSize());
    put(m, EPOCHS, c.epochs());
    put(m, MAX_ITERATIONS, c.maxIterations());
    put(m, SPLIT, c.nonIid() ? "non-iid" : "iid");
    put(m, SEED, c.seed());
    putGiven(m, OUTPUT, c.output());
    put(m, EVAL_EVERY, c.evalEvery());
    put(m, CONSISTENCY_CHECK_EVERY, c.consistencyCheckEvery());
    put(m, SNAPSHOT_EVERY, c.snapshotEvery());
    put(m, UPDATE_WINDOW, c.updateWindow());
    put(m, XI, c.xi());
    putGiven(m, CAPTURE_VECTORS, c.captureVectors().isEmpty() ? Optional.empty()
        : Optional.of(TrainingConfig.captureVectorsText(c.captureVectors())));
    put(m, CHECKPOINT_EVERY, c.checkpointEvery());
    putGiven(m, X0, c.x0());
    c.table().ifPresent(table -> m.putAll(table.toFlags()));
    return m;
  }

  /** Writes {@code value} in the setting's recorded form, unless the setting leaves such a value out. */
  private static <T> void put(Map<String, Object> m, TrainSetting<T> setting, T value) {
    if (!setting.omits(value)) {
      m.put(setting.key(), setting.recordedForm(value));
    }
  }

  /** Writes the value as {@link #put} does; an absent one without a value, unless the setting leaves it out. */
  private static <T> void putGiven(Map<String, Object> m, TrainSetting<T> setting, Optional<T> value) {
    if (value.isPresent()) {
      put(m, setting, value.get());
    } else if (!setting.omitsAbsent()) {
      m.put(setting.key(), null);
    }
  }

  /**
   * The settings as {@code config.json} records them: {@link #of} without unset values (a
   * config file refuses a key without a value) and without the settings that do not apply to the problem
   * ({@code model}, {@code split}, {@code batch-size} and {@code data} of the counterexample,
   * {@code k-rounding} of a dense run, a density replaced by {@code k-up}/{@code k-down}), which a config
   * file may not set. The mode's compressors and densities stay, with the values the mode implies (e.g.
   * {@code uplink: none} in dense mode), so every run's config.json has the same columns.
   */
  public static Map<String, Object> recorded(TrainingConfig c) {
    Map<String, Object> m = new LinkedHashMap<>(of(c));
    m.values().removeIf(Objects::isNull);
    if (c.hasNoNetwork()) {
      m.keySet().removeAll(List.of(MODEL.key(), SPLIT.key(), BATCH_SIZE.key(), DATA.key()));
    }
    if (c.mode() == Mode.DENSE) {
      m.remove(K_ROUNDING.key());   // dense mode keeps every coordinate: no k to round
    }
    if (c.kUp().isPresent()) {
      m.remove(DENSITY_UP.key());   // k is given directly: the density is not used
    }
    if (c.kDown().isPresent()) {
      m.remove(DENSITY_DOWN.key());
    }
    return m;
  }

  /** The runner settings' keys and the standard options' names, sorted as the refusal lists them. */
  private static Set<String> runnerKeys() {
    Set<String> keys = new TreeSet<>(Set.of("help", "version"));
    ALL.stream().filter(TrainSetting::runner).forEach(s -> keys.add(s.key()));
    return keys;
  }
}
