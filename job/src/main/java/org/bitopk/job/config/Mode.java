package org.bitopk.job.config;

import java.util.Locale;

/** Which directions are compressed. */
public enum Mode {
  /** Workers send TopK (+ residual); the server compresses the average again (+ server residual). */
  BIDIRECTIONAL,
  /** Workers send TopK (+ residual); the server broadcasts the average as is. */
  UNIDIRECTIONAL,
  /** Plain data-parallel SGD: dense gradients up, the dense average down. */
  DENSE;

  public String cliName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Mode parse(String text) {
    for (Mode m : values()) {
      if (m.cliName().equals(text.toLowerCase(Locale.ROOT))) {
        return m;
      }
    }
    throw new IllegalArgumentException("unknown mode '" + text + "': expected bidirectional, unidirectional or dense");
  }
}
