package org.bitopk.job.config;

/**
 * The check a {@link TrainSetting} puts a value through, wherever it comes from (the command line, a config file,
 * a grid point, code); it returns the value to keep (a text trimmed) or refuses it with a message that starts
 * with the flag, e.g. {@code --density-up: expected a density in (0, 1], got 2.0}.
 */
@FunctionalInterface
public interface SettingCheck<T> {
  T apply(String flag, T value);

  /** Every value passes. */
  static <T> SettingCheck<T> none() {
    return (flag, value) -> value;
  }

  /** A text with something in it, trimmed; an empty one is refused rather than read as "the default". */
  static SettingCheck<String> nonBlank() {
    return (flag, v) -> {
      if (v == null || v.isBlank()) {
        throw new IllegalArgumentException(flag + ": expected a non-empty value, got '" + (v == null ? "" : v)
            + "' (leave the flag out for its default)");
      }
      return v.trim();
    };
  }

  static SettingCheck<Integer> atLeast(int min) {
    return (flag, v) -> {
      if (v < min) {
        throw new IllegalArgumentException(flag + ": expected an integer >= " + min + ", got " + v);
      }
      return v;
    };
  }

  /** A density rho in (0, 1]: k = rho*d. */
  static SettingCheck<Double> density() {
    return (flag, v) -> inUnitInterval(flag, v, "a density");
  }

  /** A memory rate alpha in (0, 1]. */
  static SettingCheck<Double> rate() {
    return (flag, v) -> inUnitInterval(flag, v, "a rate");
  }

  /** A factor in (0, 1], such as the learning rate's per epoch. */
  static SettingCheck<Double> factor() {
    return (flag, v) -> inUnitInterval(flag, v, "a factor");
  }

  static SettingCheck<Double> positive() {
    return (flag, v) -> {
      if (!(v > 0 && Double.isFinite(v))) {
        throw new IllegalArgumentException(flag + ": expected a positive number, got " + v);
      }
      return v;
    };
  }

  /** A value in [0, 1), such as a momentum. */
  static SettingCheck<Double> belowOne() {
    return (flag, v) -> {
      if (!(v >= 0 && v < 1)) {
        throw new IllegalArgumentException(flag + ": expected a value in [0, 1), got " + v);
      }
      return v;
    };
  }

  /** A count where 0 means "no limit". */
  static SettingCheck<Long> limit() {
    return (flag, v) -> {
      if (v < 0) {
        throw new IllegalArgumentException(flag + ": expected >= 0 (0 = no limit), got " + v);
      }
      return v;
    };
  }

  private static double inUnitInterval(String flag, double v, String what) {
    if (!(v > 0 && v <= 1)) {
      throw new IllegalArgumentException(flag + ": expected " + what + " in (0, 1], got " + v);
    }
    return v;
  }
}
