package org.bitopk.lab.baseline;

import java.io.IOException;

/**
 * A fault a measured run is put through (time-to-accuracy's {@code --cut}): the run tells it the rounds it has
 * completed, and it strikes at its round; it says how long ago it struck, and once the run is over it undoes what it
 * did and describes what happened. {@link #NONE} is the run without a fault.
 */
interface RunFault extends AutoCloseable {
  RunFault NONE = new RunFault() {
    @Override
    public void reached(long round) {}

    @Override
    public boolean planned() {
      return false;
    }

    @Override
    public String sinceStrike() {
      return "";
    }

    @Override
    public void close() {}

    @Override
    public String describe() {
      return "";
    }
  };

  /** The run has completed {@code round} rounds; called as they complete, never blocking the run. */
  void reached(long round);

  /** Whether a fault awaits the run: the DDP systems then checkpoint and restart as their users would. */
  boolean planned();

  /** When the fault struck, as a phrase to follow a time: "61.2 s after the link went down"; empty before. */
  String sinceStrike();

  /** Undoes the fault if it is still on, so that the next run starts without it. */
  @Override
  void close() throws IOException, InterruptedException;

  /** What the fault did, for the row's details ("...; "), empty without one. */
  String describe();
}
