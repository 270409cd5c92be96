package org.bitopk.lab.baseline;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.stream.Stream;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.ValueFormat;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TrainingConfigBuilder;

/**
 * The one place that says what each bitopk system of the comparison runs: its name on the command line and in the
 * table, and the job's settings behind it (mode, compressors up and down, value formats, a fixed density).
 *
 * <p>{@code bitopk-dense-fp16} is the dense baseline with half the bytes: {@code --mode dense} sends its values as
 * FP32 and refuses {@code --values-up/--values-down}, because rounding without a residual would lose what rounding
 * drops every round; bidirectional TopK at ρ = 1 up and down sends every coordinate (the wire format's dense index
 * layout, no index bytes) with FP16 values, and both sides' error feedback keep exactly what rounding dropped.
 */
enum BitopkVariant {
  BIDIRECTIONAL("bidirectional", Mode.BIDIRECTIONAL, "topk", "topk", ValueFormat.FP32, OptionalDouble.empty()),
  UNIDIRECTIONAL("unidirectional", Mode.UNIDIRECTIONAL, "topk", "topk", ValueFormat.FP32, OptionalDouble.empty()),
  DENSE("dense", Mode.DENSE, "topk", "topk", ValueFormat.FP32, OptionalDouble.of(1.0)),
  DENSE_FP16("dense-fp16", Mode.BIDIRECTIONAL, "topk", "topk", ValueFormat.FP16, OptionalDouble.of(1.0)),
  SIDCO("sidco", Mode.BIDIRECTIONAL, "sidco-e", "topk", ValueFormat.FP32, OptionalDouble.empty()),
  DGC("dgc", Mode.BIDIRECTIONAL, "dgc", "topk", ValueFormat.FP32, OptionalDouble.empty());

  static final String PREFIX = "bitopk-";

  private final String suffix;
  private final Mode mode;
  private final CompressorSpec uplink;
  private final CompressorSpec downlink;
  private final ValueFormat values;
  /** The density the system always runs at (dense ones); empty: --density or the name's -rho-RHO. */
  private final OptionalDouble fixedDensity;

  BitopkVariant(String suffix, Mode mode, String uplink, String downlink, ValueFormat values,
      OptionalDouble fixedDensity) {
    this.suffix = suffix;
    this.mode = mode;
    this.uplink = CompressorSpec.parse(uplink);
    this.downlink = CompressorSpec.parse(downlink);
    this.values = values;
    this.fixedDensity = fixedDensity;
  }

  String systemName() {
    return PREFIX + suffix;
  }

  Mode mode() {
    return mode;
  }

  /** Whether a density of its own ({@code -rho-RHO}) means anything: not for the dense systems. */
  boolean takesDensity() {
    return fixedDensity.isEmpty();
  }

  /** ρ up and down: the fixed one, else {@code chosen}. */
  double density(double chosen) {
    return fixedDensity.orElse(chosen);
  }

  /** The values' format: {@code chosen} when it is not FP32 (a {@code -values-} name), else the variant's own. */
  ValueFormat values(ValueFormat chosen) {
    return chosen == ValueFormat.FP32 ? values : chosen;
  }

  /** The job's settings of this system, on top of the comparison's shared ones. */
  TrainingConfigBuilder configure(TrainingConfigBuilder b, double density, ValueFormat chosen) {
    double rho = density(density);
    ValueFormat v = values(chosen);
    b.mode(mode).uplink(uplink).downlink(downlink).densityUp(rho).densityDown(rho);
    if (v != ValueFormat.FP32) {
      // the downlink rounds only where the server has error feedback to keep the rest
      b.valuesUp(v).valuesDown(mode == Mode.BIDIRECTIONAL ? v : ValueFormat.FP32);
    }
    return b;
  }

  /** One line for the table's details. */
  String describe(double density, ValueFormat chosen) {
    ValueFormat v = values(chosen);
    String valuesText = v.text() + " values " + (mode == Mode.BIDIRECTIONAL ? "up and down" : "up");
    if (this == DENSE) {
      return "bitopk dense (every coordinate up and down, fp32 values)";
    }
    if (this == DENSE_FP16) {
      return "bitopk bidirectional TopK at rho 1 up and down, " + valuesText + " (every coordinate, no index "
          + "bytes; error feedback keeps what rounding drops)";
    }
    return String.format(Locale.ROOT, "bitopk %s; uplink %s, downlink %s; rho %s up and down; %s",
        mode.cliName(), uplink, mode == Mode.BIDIRECTIONAL ? downlink : "none (the average as is)",
        density(density), valuesText);
  }

  /** The variant a system name starts with (the longest such name: dense-fp16 before dense). */
  static Optional<BitopkVariant> prefixOf(String name) {
    return Stream.of(values()).filter(v -> name.equals(v.systemName()) || name.startsWith(v.systemName() + "-"))
        .max(Comparator.comparingInt(v -> v.systemName().length()));
  }

  static List<String> names() {
    return Stream.of(values()).map(BitopkVariant::systemName).toList();
  }
}
