package org.bitopk.lab.baseline;

import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * The network lab's links, set to one rate after another between the systems' runs: {@code submit/netlab.sh} gives
 * the driver a hook ({@value #HOOK_VARIABLE}) that re-shapes every host's link to a rate, times a transfer from a
 * worker host to the driver's, and prints the measured Mbit/s as its last line.
 */
final class LabLinks {
  static final String HOOK_VARIABLE = "BITOPK_NETLAB_RESHAPE";
  /** The lab's own settings (hosts, cores, memory), as netlab.sh describes them. */
  static final String SETTINGS_VARIABLE = "BITOPK_NETLAB_SETTINGS";
  /** The file of the links' settings and the probe's measured rate at each. */
  static final String FILE = "links.csv";
  private static final long HOOK_SECONDS = 300;

  private final LabHook hook;
  private final String settings;

  private LabLinks(String hook, String settings) {
    // the probe's logs go to the driver's standard error; the last line of the output is the measured rate
    this.hook = new LabHook(HOOK_VARIABLE, hook, HOOK_SECONDS, false);
    this.settings = settings;
  }

  /** The lab's settings for the record, e.g. "submit/netlab.sh --hosts 4 --cores 2 --memory 1g". */
  String settings() {
    return settings;
  }

  /**
   * The lab's hook from the environment.
   *
   * @throws IllegalArgumentException when the command does not run in the network lab
   */
  static LabLinks fromEnvironment() {
    String hook = System.getenv(HOOK_VARIABLE);
    if (hook == null || hook.isBlank()) {
      throw new IllegalArgumentException("--rates: re-shapes the network lab's links between runs, so it runs only "
          + "under submit/netlab.sh (which sets " + HOOK_VARIABLE + ")");
    }
    String settings = System.getenv(SETTINGS_VARIABLE);
    return new LabLinks(hook, settings == null ? "the network lab" : settings);
  }

  /** A rate as netlab.sh takes it: a number followed by kbit, mbit or gbit, or none (unshaped). */
  static String checkRate(String rate) {
    String r = rate.trim().toLowerCase(Locale.ROOT);
    if (!r.matches("none|[1-9][0-9]*(kbit|mbit|gbit)")) {
      throw new IllegalArgumentException("--rates: expected rates like 100mbit, 1gbit or none, got '" + rate + "'");
    }
    return r;
  }

  /** Sets every link to {@code rate} and returns the probe's measured Mbit/s. */
  double reshape(String rate) throws IOException, InterruptedException {
    List<String> lines = hook.run("set the links to " + rate, rate).lines().filter(l -> !l.isBlank()).toList();
    if (lines.isEmpty()) {
      throw new IOException(hook.named(rate) + " printed no measured rate for " + rate + " (no output)");
    }
    try {
      return Double.parseDouble(lines.get(lines.size() - 1).trim());
    } catch (NumberFormatException e) {
      throw new IOException(hook.named(rate) + " printed no measured rate for " + rate + ": '"
          + lines.get(lines.size() - 1) + "'");
    }
  }
}
