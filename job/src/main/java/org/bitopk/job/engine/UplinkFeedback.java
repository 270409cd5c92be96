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
 *   <li>{@link #ARTEMIS}: the uplink memory of Artemis and MCM (Philippenko & Dieuleveut 2020, 2021; DIANA's
 *       gradient-difference memory): the worker keeps h_i, sends c_i = C(∇f_i(x) − h_i) and sets
 *       h_i ← h_i + α_up·c_i; the server keeps h = mean h_i and steps with lr·(h + mean c_i), then
 *       h ← h + α_up·mean c_i. With α_up = 1 this is EF21 bit for bit; the authors take α_up = 1/(2(ω + 1)) for an
 *       unbiased compressor of variance ω.
 *   <li>{@link #NONE}: plain compression, c_i = lr·g_i, nothing kept.
 * </ul>
 */
public enum UplinkFeedback {
  EF14,
  EF21,
  ARTEMIS,
  NONE;

  /** Whether workers keep a gradient estimate in gradient units and the server its mean (EF21, Artemis). */
  public boolean keepsGradientEstimate() {
    return this == EF21 || this == ARTEMIS;
  }

  public String cliName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses ef14, ef21, artemis or none; the message names the flag. */
  public static UplinkFeedback parse(String text) {
    for (UplinkFeedback f : values()) {
      if (f.cliName().equals(text.trim().toLowerCase(Locale.ROOT))) {
        return f;
      }
    }
    throw new IllegalArgumentException("--uplink-feedback: expected ef14, ef21, artemis or none, got '" + text + "'");
  }
}
