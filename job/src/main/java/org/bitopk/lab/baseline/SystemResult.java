package org.bitopk.lab.baseline;

import java.util.Locale;
import java.util.Objects;

/**
 * What one system did: its trace and a description of how it ran (settings, what its bytes count), or, when it
 * could not train, why ({@code failure}, the first line of the error) with whatever trace it had. {@code
 * bytesMeasured} is false for a system whose traffic is not counted (its byte cells stay empty).
 */
public record SystemResult(String system, String details, Trace trace, String failure, boolean bytesMeasured) {
  public SystemResult {
    Objects.requireNonNull(system, "system");
    Objects.requireNonNull(details, "details");
    Objects.requireNonNull(trace, "trace");
  }

  static SystemResult ok(String system, String details, Trace trace) {
    return new SystemResult(system, details, trace, null, true);
  }

  /** A result whose trace's bytes are not a measurement (they stay empty in the table). */
  SystemResult withoutBytes() {
    return new SystemResult(system, details, trace, failure, false);
  }

  /** The same result under another name (the system at one link rate) with {@code note} before its details. */
  SystemResult labelled(String label, String note) {
    return new SystemResult(label, note + details, trace, failure, bytesMeasured);
  }

  static SystemResult failed(String system, String details, Trace trace, String failure) {
    return new SystemResult(system, details, trace, Objects.requireNonNull(failure, "failure"), true);
  }

  /** Training clock at the end (the last evaluation), 0 without any. */
  public double wallSeconds() {
    return trace.last().map(TracePoint::seconds).orElse(0.0);
  }

  public long bytesTotal() {
    return trace.last().map(TracePoint::bytes).orElse(0L);
  }

  /** The console's line: the failure, the pace, when it reached {@code target}, and where it ended. */
  String summary(double target, int evalEvery) {
    StringBuilder s = new StringBuilder();
    if (failure != null) {
      s.append("FAILED: ").append(failure).append("; ");
    }
    RoundPace.of(trace, evalEvery).ifPresent(p -> s.append(p.text()).append("; "));
    trace.split().filter(split -> split.rounds() > 0).ifPresent(split -> s.append(split.text()).append("; "));
    s.append(trace.firstReaching(target).map(p -> String.format(Locale.ROOT,
        "reached %.1f %% after %.1f s%s", 100 * target, p.seconds(), bytesMeasured ? ", " + p.bytes() + " bytes"
            : "")).orElse(String.format(Locale.ROOT, "did not reach %.1f %%", 100 * target)));
    trace.last().ifPresent(p -> s.append(String.format(Locale.ROOT, "; %.2f %% after %.1f s, %d rounds",
        100 * p.accuracy(), p.seconds(), p.rounds())));
    return s.toString();
  }
}
