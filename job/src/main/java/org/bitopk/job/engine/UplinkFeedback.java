package org.bitopk.job.engine;

import java.util.Locale;

/**
 * What a worker remembers between rounds to make up for what its compressor dropped.
 *
 * <ul>
 *   <li>{@link #EF14}: classic error feedback (Seide et al. 2014, Stich et al. 2018): c_i = e_i + lr·g_i,
 *       send C(c_i), keep e_i = c_i − C(c_i). The server applies the average of what it receives.
 *   <li>{@link #EF21}: Richtárik, Sokolov, Fatkhullin (NeurIPS 2021): the worker keeps a gradient estimate g_i,
 *       sends c_i = C(∇f_i(x) − g_i) and sets g_i ← g_i + c_i; the server keeps g = mean g_i (updated by mean c_i)
 *       and steps with lr·g. g_i is in gradient units, so a learning-rate decay applies at once and exactly.
 *   <li>{@link #NONE}: plain compression, c_i = lr·g_i, nothing kept.
 * </ul>
 */
public enum UplinkFeedback {
  EF14,
  EF21,
  NONE;

  public String cliName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses ef14, ef21 or none; the message names the flag. */
  public static UplinkFeedback parse(String text) {
    for (UplinkFeedback f : values()) {
      if (f.cliName().equals(text.trim().toLowerCase(Locale.ROOT))) {
        return f;
      }
    }
    throw new IllegalArgumentException("--uplink-feedback: expected ef14, ef21 or none, got '" + text + "'");
  }
}
