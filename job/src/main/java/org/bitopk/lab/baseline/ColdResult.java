package org.bitopk.lab.baseline;

import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * One system's cold measurement ({@link ColdStart}): the seconds from launching its own JVM to its trace at the
 * target, or none, and {@code details} saying how it ran or why there is no figure. Details of a row without a
 * figure start with the reason ("not within ...", "FAILED: ...", "not run: ...", "not measured ..."), so the first
 * clause can stand in for the number.
 */
record ColdResult(OptionalDouble seconds, String details) {
  /** The details of a row of a comparison without {@code --cold}. */
  static final ColdResult NOT_MEASURED = new ColdResult(OptionalDouble.empty(), "not measured (no --cold)");

  ColdResult {
    Objects.requireNonNull(seconds, "seconds");
    Objects.requireNonNull(details, "details");
  }

  static ColdResult reached(double seconds, String details) {
    return new ColdResult(OptionalDouble.of(seconds), details);
  }

  static ColdResult none(String details) {
    return new ColdResult(OptionalDouble.empty(), details);
  }

  /** The console's words: the figure and its details, or the details alone. */
  String summary() {
    return seconds.isPresent() ? String.format(Locale.ROOT, "%.1f s from its launch to the target (%s)",
        seconds.getAsDouble(), details) : details;
  }
}
