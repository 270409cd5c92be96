package org.bitopk.job.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.bitopk.ml.BitopkClassifier;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A setting is declared once, in {@link TrainSettings}: the train command's options, the builder's defaults, the
 * settings written back into config.json and the Spark ML estimator's defaults all follow the declarations.
 */
class TrainSettingsTest {

  /** A setting no command has: declaring it is all it takes to get its option, check and record. */
  private static final TrainSetting<Integer> ROUNDS_AHEAD = TrainSetting.of("rounds-ahead", Integer.class)
      .label("N").help("Rounds a replica may run ahead (default: ${DEFAULT-VALUE}).")
      .byDefault(3).checkedBy(SettingCheck.atLeast(1)).modes(Mode.BIDIRECTIONAL).build();

  /** As the train command declares itself: with --help and --version. */
  @Command(mixinStandardHelpOptions = true, sortOptions = false)
  static final class WithHelp extends TrainOptions {}

  @Test
  void aSettingDeclaredHereIsAnOptionWithItsHelpDefaultAndCheck() {
    CommandSpec command = CommandSpec.create();
    command.addOption(ROUNDS_AHEAD.option());
    CommandLine line = new CommandLine(command);
    String help = line.getUsageMessage();
    assertTrue(help.contains("--rounds-ahead=N"), help);
    assertTrue(help.contains("Rounds a replica may run ahead (default: 3)."), help);

    line.parseArgs();
    assertEquals(3, (Integer) command.findOption("--rounds-ahead").getValue());
    line.parseArgs("--rounds-ahead", "5");
    assertEquals(5, (Integer) command.findOption("--rounds-ahead").getValue());
    CommandLine.ParameterException badText = assertThrows(CommandLine.ParameterException.class,
        () -> line.parseArgs("--rounds-ahead", "many"));
    assertTrue(badText.getMessage().startsWith("Invalid value for option '--rounds-ahead': 'many'"),
        badText.getMessage());

    assertEquals(7, ROUNDS_AHEAD.checked(7));
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> ROUNDS_AHEAD.checked(0));
    assertEquals("--rounds-ahead: expected an integer >= 1, got 0", refused.getMessage());
    assertEquals(5, ROUNDS_AHEAD.recordedForm(5));
    assertTrue(ROUNDS_AHEAD.appliesTo(Mode.BIDIRECTIONAL));
    assertFalse(ROUNDS_AHEAD.appliesTo(Mode.DENSE));
  }

  @Test
  void everyDeclaredSettingIsInTheRegistryOnce() throws IllegalAccessException {
    List<TrainSetting<?>> fields = new ArrayList<>();
    for (Field field : TrainSettings.class.getDeclaredFields()) {
      if (Modifier.isPublic(field.getModifiers()) && field.getType() == TrainSetting.class) {
        fields.add((TrainSetting<?>) field.get(null));
      }
    }
    assertEquals(Set.copyOf(fields), Set.copyOf(TrainSettings.ALL));
    assertEquals(TrainSettings.ALL.size(), keys(TrainSettings.ALL).size(), "two settings share a key");
    for (TrainSetting<?> setting : TrainSettings.ALL) {
      assertEquals(setting, TrainSettings.named(setting.key()).orElseThrow());
    }
  }

  /** The options are the settings', in their order, with their labels, help and starting values; then --help. */
  @Test
  void theTrainOptionsAreTheSettingsAsDeclared() {
    CommandSpec command = new CommandLine(new WithHelp()).getCommandSpec();
    List<OptionSpec> options = command.options();
    List<String> expected = new ArrayList<>();
    TrainSettings.ALL.forEach(s -> expected.add(s.flag()));
    expected.addAll(List.of("--help", "--version"));
    assertEquals(expected, options.stream().map(OptionSpec::longestName).collect(Collectors.toList()));

    CommandLine line = new CommandLine(new TrainOptions());
    line.parseArgs();
    for (TrainSetting<?> setting : TrainSettings.ALL) {
      OptionSpec option = line.getCommandSpec().findOption(setting.flag());
      assertNotNull(option, setting.flag());
      // the help as declared, its ${...} variables filled in by picocli
      String declared = Pattern.quote(setting.help()).replaceAll("\\$\\{[^}]*}", "\\\\E.+\\\\Q");
      assertEquals(1, option.description().length, setting.flag());
      assertTrue(option.description()[0].matches(declared), setting.flag() + ": " + option.description()[0]);
      if (setting.label().isEmpty()) {
        assertEquals(0, option.arity().max(), setting.flag() + " is a switch");
      } else {
        assertEquals(setting.label(), option.paramLabel(), setting.flag());
      }
      Object value = option.getValue();
      if (value != null) {
        assertEquals(setting.defaultValue().orElseThrow(), value, setting.flag());
      }
    }
  }

  /** The builder's defaults are the declared ones: a run left at its defaults records them. */
  @Test
  void aRunLeftAtItsDefaultsRecordsTheDeclaredDefaults() {
    Map<String, Object> plain = FlagValues.of(TrainingConfig.builder().build());
    Map<String, Object> table = FlagValues.of(configOf("data-format", "parquet", "data", "/t.parquet"));
    int compared = 0;
    for (TrainSetting<?> setting : TrainSettings.ALL) {
      Map<String, Object> written = plain.containsKey(setting.key()) ? plain : table;
      if (setting.recorded() && setting.defaultValue().isPresent() && written.containsKey(setting.key())) {
        assertEquals(recordedDefault(setting), written.get(setting.key()), setting.flag());
        compared++;
      }
    }
    assertTrue(compared >= 20, "only " + compared + " defaults compared");
  }

  /**
   * The recorded settings are exactly the keys config.json is written with: over runs that between them set every
   * setting, no recorded setting is missing from the write-back and no written key lacks a declaration.
   */
  @Test
  void everyRecordedSettingIsWrittenBack() {
    List<TrainingConfig> runs = List.of(
        TrainingConfig.builder().build(),
        configOf("k-up", "5", "k-down", "7", "values-up", "fp16", "values-down", "bf16", "capture-vectors", "1,3"),
        configOf("uplink-feedback", "artemis", "uplink", "randomk:scaled", "up-memory-rate", "0.5",
            "downlink-scheme", "mcm", "down-memory-rate", "0.25", "master", "local[2]").toBuilder().output("out")
            .build(),
        configOf("dataset", "counterexample", "x0", "x0.npy"),
        configOf("data-format", "parquet", "data", "/t.parquet", "features", "f*", "input-shape", "1x2x2",
            "normalize", "none", "feature-scale", "255"),
        configOf("table", "db.t", "test-data", "parquet:/test"));
    Set<String> written = new TreeSet<>();
    for (TrainingConfig run : runs) {
      FlagValues.of(run).forEach((key, value) -> {
        if (value != null) {
          written.add(key);
        }
      });
    }
    Set<String> recorded = new TreeSet<>();
    TrainSettings.ALL.stream().filter(TrainSetting::recorded).forEach(s -> recorded.add(s.key()));
    assertEquals(recorded, written);
  }

  @Test
  void theModesSettingsAreThoseTheyApplyTo() {
    assertEquals(Set.of("uplink", "downlink", "density-up", "density-down", "k-up", "k-down", "k-rounding",
        "values-up", "values-down"), TrainSettings.notApplicableTo("dense"));
    assertEquals(Set.of("downlink", "density-down", "k-down", "values-down"),
        TrainSettings.notApplicableTo("unidirectional"));
    assertEquals(Set.of(), TrainSettings.notApplicableTo("bidirectional"));
  }

  /** The Spark ML estimator's parameters start where the command line's flags do. */
  @Test
  void theEstimatorsDefaultsAreTheDeclaredOnes() {
    BitopkClassifier c = new BitopkClassifier();
    assertEquals(recordedDefault(TrainSettings.MODE), c.getMode());
    assertEquals(recordedDefault(TrainSettings.UPLINK), c.getUplink());
    assertEquals(recordedDefault(TrainSettings.DOWNLINK), c.getDownlink());
    assertDefault(TrainSettings.DENSITY_UP, c.getDensityUp());
    assertDefault(TrainSettings.DENSITY_DOWN, c.getDensityDown());
    assertDefault(TrainSettings.WORKERS, c.getWorkers());
    assertDefault(TrainSettings.LR, c.getLr());
    assertDefault(TrainSettings.LR_DECAY, c.getLrDecay());
    assertDefault(TrainSettings.MOMENTUM, c.getMomentum());
    assertDefault(TrainSettings.EPOCHS, c.getEpochs());
    assertDefault(TrainSettings.MAX_ITERATIONS, c.getMaxIterations());
    assertDefault(TrainSettings.BATCH_SIZE, c.getBatchSize());
    assertDefault(TrainSettings.SPLIT, c.getSplit());
    assertDefault(TrainSettings.SEED, c.getSeed());
    assertDefault(TrainSettings.TEST_FRACTION, c.getTestFraction());
    assertDefault(TrainSettings.NORMALIZE, c.getNormalize());
    assertDefault(TrainSettings.FEATURE_SCALE, c.getFeatureScale());
    assertDefault(TrainSettings.OVERWRITE, c.getOverwrite());
    // and those are the values a run of the command line is built with
    TrainingConfig cli = TrainingConfig.builder().build();
    assertEquals(cli.densityUp(), c.getDensityUp());
    assertEquals(cli.workers(), c.getWorkers());
    assertEquals(cli.learningRate(), c.getLr());
    assertEquals(cli.batchSize(), c.getBatchSize());
    assertEquals(cli.seed(), c.getSeed());
  }

  private static void assertDefault(TrainSetting<?> setting, Object actual) {
    assertEquals(setting.defaultValue().orElseThrow(), actual, setting.flag());
  }

  private static <T> Object recordedDefault(TrainSetting<T> setting) {
    return setting.recordedForm(setting.defaultValue().orElseThrow());
  }

  private static Set<String> keys(List<TrainSetting<?>> settings) {
    return settings.stream().map(TrainSetting::key).collect(Collectors.toSet());
  }

  private static TrainingConfig configOf(String... keysAndValues) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      settings.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return FlagValues.configOf(settings, new Configuration());
  }
}
