package org.bitopk.lab.baseline;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code --cut HOST:rROUND:SECONDS}: in every measured run (each system at each rate), worker host HOST's link goes
 * down once the run has completed ROUND rounds, and up again SECONDS later (or when the run ends, if sooner), through
 * the network lab's hook ({@link LinkSwitch}). Each run gets a {@link LinkCutRun} of its own.
 */
record LinkCut(int host, long round, long seconds, LinkSwitch links) {
  static final String FLAG = "--cut";
  private static final Pattern SPEC = Pattern.compile("([0-9]+):r([0-9]+):([0-9]+)");

  LinkCut {
    if (host < 1 || host > links.hosts()) {
      throw new IllegalArgumentException(FLAG + ": host " + host + " is not a worker host of the lab (1.."
          + links.hosts() + ")");
    }
    if (round < 1 || seconds < 1) {
      throw new IllegalArgumentException(FLAG + ": expected a round >= 1 and seconds >= 1, got round " + round
          + " and " + seconds + " s");
    }
  }

  /**
   * The cut a {@code --cut} value asks for, on the lab the command runs in.
   *
   * @throws IllegalArgumentException naming the flag: a malformed value, a host the lab lacks, no lab, or a
   *     learning-rate grid (which measures no time)
   */
  static LinkCut parse(String spec, boolean grid) {
    Matcher m = SPEC.matcher(spec.trim());
    if (!m.matches() || m.group(1).length() > 6 || m.group(2).length() > 12 || m.group(3).length() > 6) {
      throw new IllegalArgumentException(FLAG + ": expected HOST:rROUND:SECONDS (a worker host of the lab, the "
          + "round after which its link goes down, for how many seconds), e.g. 2:r100:80; got '" + spec + "'");
    }
    if (grid) {
      throw new IllegalArgumentException(FLAG + ": not with --lr-grid, which counts rounds, not seconds");
    }
    return new LinkCut(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
        LinkSwitch.fromEnvironment(FLAG));
  }

  /** As on the command line. */
  String text() {
    return host + ":r" + round + ":" + seconds;
  }
}
