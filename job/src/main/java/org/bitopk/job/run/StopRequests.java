package org.bitopk.job.run;

import java.io.PrintWriter;

/**
 * Requests to stop from outside (SIGINT, SIGTERM), as a command that writes sees them: once it has begun writing,
 * a request only takes effect at the command's next safe point, between writes, and the one line is written
 * from what its directory then holds.
 */
public interface StopRequests {
  /** Requests that are never made: for commands run without signal handling (tests, embedding). */
  StopRequests NONE = new StopRequests() {
    @Override
    public void deferTo(Runnable hurry) {}

    @Override
    public void stopIfRequested() {}

    @Override
    public boolean requested() {
      return false;
    }

    @Override
    public int report(PrintWriter err, String where, boolean finished) {
      throw new IllegalStateException("no stop was requested");
    }
  };

  /** From now on a request waits for the next {@link #stopIfRequested}; {@code hurry} gets there sooner. */
  void deferTo(Runnable hurry);

  /** Throws when a stop was requested: call where stopping leaves nothing half written. */
  void stopIfRequested();

  boolean requested();

  /** Prints the one line, the request's signal followed by {@code where}, and returns the exit code. */
  int report(PrintWriter err, String where, boolean finished);
}
