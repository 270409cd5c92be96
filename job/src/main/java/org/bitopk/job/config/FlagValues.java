package org.bitopk.job.config;

import static org.bitopk.job.config.TrainFlags.*;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.bitopk.compression.ValueFormat;
import picocli.CommandLine;

/**
 * A run's settings as train flag names (without dashes) to values, both ways: a {@code config.json} or a grid point
 * read into a {@link TrainingConfig} ({@link #configOf}) and a config written back as such a map ({@link #of},
 * {@link #recorded}).
 */
public final class FlagValues {
  /** Flags that say where and how to run rather than what: not part of a run's settings. */
  private static final Set<String> RUNNER_KEYS = new TreeSet<>(Set.of(CONFIG, RESUME, OUTPUT, OVERWRITE, "help",
      "version"));

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
      if (line.getCommandSpec().findOption(flag(key)) == null || RUNNER_KEYS.contains(key)) {
        throw new IllegalArgumentException("unknown key '" + key + "' (keys are train flag names without dashes, "
            + "e.g. " + LR + ", " + DENSITY_UP + "; " + String.join(", ", RUNNER_KEYS) + " are not settings of a run)");
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
    m.put(MASTER, c.master());
    m.put(DATASET, c.table() == null ? c.dataset() : null);
    m.put(DATA, c.table() == null ? c.data() : c.table().path());
    m.put(MODEL, c.hasNoNetwork() ? null : c.model().flagValue());
    m.put(MODE, c.mode().cliName());
    m.put(WORKERS, c.workers());
    m.put(TASKS, c.tasks());
    m.put(UPLINK, c.uplink().toString());
    m.put(DOWNLINK, c.downlink().toString());
    m.put(DENSITY_UP, c.densityUp());
    m.put(DENSITY_DOWN, c.densityDown());
    if (c.kUp() != null) {
      m.put(K_UP, c.kUp());
    }
    if (c.kDown() != null) {
      m.put(K_DOWN, c.kDown());
    }
    m.put(K_ROUNDING, c.kRounding().text());
    if (c.valuesUp() != ValueFormat.FP32) {
      m.put(VALUES_UP, c.valuesUp().text());
    }
    if (c.valuesDown() != ValueFormat.FP32) {
      m.put(VALUES_DOWN, c.valuesDown().text());
    }
    m.put(LR, c.learningRate());
    m.put(LR_DECAY, c.lrDecay());
    m.put(MOMENTUM, c.momentum());
    m.put(UPLINK_FEEDBACK, c.uplinkFeedback().cliName());
    m.put(DOWNLINK_SCHEME, c.downlinkScheme().cliName());
    if (c.upMemoryRate() != null) {
      m.put(UP_MEMORY_RATE, c.upMemoryRate());
    }
    if (c.downMemoryRate() != null) {
      m.put(DOWN_MEMORY_RATE, c.downMemoryRate());
    }
    m.put(BATCH_SIZE, c.batchSize());
    m.put(EPOCHS, c.epochs());
    m.put(MAX_ITERATIONS, c.maxIterations());
    m.put(SPLIT, c.nonIid() ? "non-iid" : "iid");
    m.put(SEED, c.seed());
    m.put(OUTPUT, c.output());
    m.put(EVAL_EVERY, c.evalEvery());
    m.put(CONSISTENCY_CHECK_EVERY, c.consistencyCheckEvery());
    m.put(SNAPSHOT_EVERY, c.snapshotEvery());
    m.put(UPDATE_WINDOW, c.updateWindow());
    m.put(XI, c.xi());
    m.put(CAPTURE_VECTORS, c.captureVectors().isEmpty() ? null : TrainingConfig.captureVectorsText(c.captureVectors()));
    m.put(CHECKPOINT_EVERY, c.checkpointEvery());
    if (c.x0() != null) {
      m.put(X0, c.x0());
    }
    if (c.table() != null) {
      m.putAll(c.table().toFlags());
    }
    return m;
  }

  /**
   * The settings as {@code config.json} records them: {@link #of} without unset values (no
   * {@code null}: a config file refuses them) and without the settings that do not apply to the problem
   * ({@code model}, {@code split}, {@code batch-size} and {@code data} of the counterexample,
   * {@code k-rounding} of a dense run, a density replaced by {@code k-up}/{@code k-down}), which a config
   * file may not set. The mode's compressors and densities stay, with the values the mode implies (e.g.
   * {@code uplink: none} in dense mode), so every run's config.json has the same columns.
   */
  public static Map<String, Object> recorded(TrainingConfig c) {
    Map<String, Object> m = new LinkedHashMap<>(of(c));
    m.values().removeIf(Objects::isNull);
    if (c.hasNoNetwork()) {
      m.keySet().removeAll(List.of(MODEL, SPLIT, BATCH_SIZE, DATA));
    }
    if (c.mode() == Mode.DENSE) {
      m.remove(K_ROUNDING);   // dense mode keeps every coordinate: no k to round
    }
    if (c.kUp() != null) {
      m.remove(DENSITY_UP);   // k is given directly: the density is not used
    }
    if (c.kDown() != null) {
      m.remove(DENSITY_DOWN);
    }
    return m;
  }
}
