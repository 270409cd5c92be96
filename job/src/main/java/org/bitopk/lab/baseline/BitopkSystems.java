package org.bitopk.lab.baseline;

import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import org.bitopk.compression.ValueFormat;

/** The systems every build has: bitopk's variants and DL4J's fit in one JVM. */
public final class BitopkSystems implements SystemFamily {
  @Override
  public Optional<ComparedSystem> parse(String name) {
    if (name.equals(SingleJvmFit.NAME)) {
      return Optional.of(new SingleJvmFit());
    }
    int valuesAt = name.lastIndexOf(BitopkSystem.VALUES_INFIX);
    String rest = valuesAt >= 0 ? name.substring(0, valuesAt) : name;
    Optional<BitopkVariant> variant = BitopkVariant.prefixOf(rest);
    if (variant.isEmpty()) {
      return Optional.empty();
    }
    ValueFormat values = ValueFormat.FP32;
    if (valuesAt >= 0) {
      try {
        values = ValueFormat.parse(name.substring(valuesAt + BitopkSystem.VALUES_INFIX.length()));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--systems: '" + name + "': " + e.getMessage());
      }
    }
    String base = variant.get().systemName();
    if (rest.equals(base)) {
      try {
        return Optional.of(new BitopkSystem(variant.get(), Optional.empty(), values));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--systems: '" + name + "': " + e.getMessage());
      }
    }
    if (rest.startsWith(base + BitopkSystem.DENSITY_INFIX)) {
      String rho = rest.substring(base.length() + BitopkSystem.DENSITY_INFIX.length());
      try {
        return Optional.of(new BitopkSystem(variant.get(), Optional.of(new BigDecimal(rho)), values));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--systems: '" + name + "': expected a density after '"
            + BitopkSystem.DENSITY_INFIX + "', got '" + rho + "'");
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--systems: '" + name + "': " + e.getMessage());
      }
    }
    return Optional.empty();
  }

  @Override
  public List<String> defaults() {
    return List.of("bitopk-bidirectional", "bitopk-unidirectional", "bitopk-dense", SingleJvmFit.NAME);
  }

  @Override
  public String names() {
    return String.join(", ", BitopkVariant.names()) + " (the sparse ones with -rho-RHO for a density of their own; "
        + "any but bitopk-dense then with -values-FORMAT for fp16, bf16 or int8 values), " + SingleJvmFit.NAME;
  }
}
