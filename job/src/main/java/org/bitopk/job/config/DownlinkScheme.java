package org.bitopk.job.config;

import java.util.Locale;

/**
 * What the server broadcasts. {@code ef}: server error feedback on the step (DoubleSqueeze with C = TopK, the
 * bidirectional default); {@code ef21-p}: EF21-P model compression, p = C(x − w); {@code average}: the step itself,
 * uncompressed (unidirectional and dense modes); {@code mcm}: MCM's compressed difference of the preserved central
 * model and a downlink memory (Philippenko & Dieuleveut 2021).
 */
public enum DownlinkScheme {
  EF("ef"),
  EF21_P("ef21-p"),
  AVERAGE("average"),
  MCM("mcm");

  private final String cliName;

  DownlinkScheme(String cliName) {
    this.cliName = cliName;
  }

  public String cliName() {
    return cliName;
  }

  /** The scheme a mode implies when --downlink-scheme is not given. */
  public static DownlinkScheme defaultFor(Mode mode) {
    return mode == Mode.BIDIRECTIONAL ? EF : AVERAGE;
  }

  public static DownlinkScheme parse(String text) {
    for (DownlinkScheme s : values()) {
      if (s.cliName.equals(text.trim().toLowerCase(Locale.ROOT))) {
        return s;
      }
    }
    throw new IllegalArgumentException("--downlink-scheme: expected ef, ef21-p, mcm or average, got '" + text + "'");
  }
}
