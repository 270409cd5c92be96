package org.bitopk.lab.baseline;

import java.io.IOException;

/**
 * The network lab's hook that takes one worker host's link down or brings it up again: {@code submit/netlab.sh}
 * writes it and gives its path to the driver in {@value #HOOK_VARIABLE}, and its number of worker hosts in {@value
 * #HOSTS_VARIABLE}; the hook logs each change to the lab's {@code counters/faults.tsv}, as the lab's own faults.
 */
final class LinkSwitch {
  static final String HOOK_VARIABLE = "BITOPK_NETLAB_LINK";
  static final String HOSTS_VARIABLE = "BITOPK_NETLAB_HOSTS";
  private static final long HOOK_SECONDS = 30;

  private final LabHook hook;
  private final int hosts;

  /** @param hook the hook's path; @param hosts the lab's worker hosts, 1 to {@code hosts} */
  LinkSwitch(String hook, int hosts) {
    // link.sh says on its standard error why it refused, which the error then quotes
    this.hook = new LabHook(HOOK_VARIABLE, hook, HOOK_SECONDS, true);
    this.hosts = hosts;
  }

  /**
   * The lab's hook from the environment.
   *
   * @throws IllegalArgumentException naming {@code flag} when the command does not run in the network lab
   */
  static LinkSwitch fromEnvironment(String flag) {
    String hook = System.getenv(HOOK_VARIABLE);
    String hosts = System.getenv(HOSTS_VARIABLE);
    if (hook == null || hook.isBlank() || hosts == null || !hosts.matches("[1-9][0-9]*")) {
      throw new IllegalArgumentException(flag + ": cuts a network lab host's link, so it runs only under "
          + "submit/netlab.sh (which sets " + HOOK_VARIABLE + " and " + HOSTS_VARIABLE + ")");
    }
    return new LinkSwitch(hook, Integer.parseInt(hosts));
  }

  int hosts() {
    return hosts;
  }

  /** Takes worker host {@code host}'s link down ({@code up} false) or brings it up. */
  void set(int host, boolean up) throws IOException, InterruptedException {
    String state = up ? "up" : "down";
    hook.run("set host " + host + "'s link " + state, Integer.toString(host), state);
  }
}
