package org.bitopk.lab.baseline;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;

/**
 * One measured run's {@link LinkCut}: once the run reports the cut's round, a thread of its own takes the host's link
 * down, waits the cut's seconds (or until the run ends) and brings it up again, so the run is never held up by the
 * hook. Closing it ends the cut if it is still on and waits, at most {@value ExecutorCount#WAIT_SECONDS} s, until the
 * application has as many executors as before, so the next run starts on the whole lab.
 */
final class LinkCutRun implements RunFault {
  private static final int UP_TRIES = 3;

  private final LinkCut cut;
  private final String label;
  private final IntSupplier executors;
  private final PrintWriter console;
  private final int executorsBefore;
  private final AtomicBoolean struck = new AtomicBoolean();
  private final CountDownLatch ended = new CountDownLatch(1);
  private volatile long lastRound;
  private volatile long downNanos = -1;
  private volatile Thread thread;
  // written by the cut's thread, read after it is joined
  private long roundAtDown;
  private long roundAtUp = -1;
  private double downSeconds;
  private boolean upEarly;
  private String problem;
  private boolean upFailed;
  private String executorsBack = "";

  /** The cut of the measured run {@code label}; {@code executors} counts the application's executors. */
  LinkCutRun(LinkCut cut, String label, IntSupplier executors, PrintWriter console) {
    this.cut = cut;
    this.label = label;
    this.executors = executors;
    this.console = console;
    this.executorsBefore = executors.getAsInt();
  }

  @Override
  public void reached(long round) {
    lastRound = Math.max(lastRound, round);
    if (round >= cut.round() && struck.compareAndSet(false, true)) {
      thread = new Thread(this::strike, "link-cut-" + label);
      thread.setDaemon(true);
      thread.start();
    }
  }

  @Override
  public boolean planned() {
    return true;
  }

  @Override
  public String sinceStrike() {
    long down = downNanos;
    return down < 0 ? "" : String.format(Locale.ROOT, "%.1f s after the link went down", (System.nanoTime() - down)
        / 1e9);
  }

  private void strike() {
    try {
      cut.links().set(cut.host(), false);
    } catch (IOException e) {
      problem = e.getMessage();
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      problem = "interrupted";
      return;
    }
    long down = System.nanoTime();
    downNanos = down;
    roundAtDown = lastRound;
    say(String.format(Locale.ROOT, "host %d's link down at round %d, for %d s", cut.host(), roundAtDown,
        cut.seconds()));
    try {
      // a run that ends within a moment of the cut's end counts as having seen the whole cut
      upEarly = ended.await(cut.seconds(), TimeUnit.SECONDS) && (System.nanoTime() - down) / 1e9 < cut.seconds()
          - 0.5;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      upEarly = true;
    }
    for (int tries = 1; ; tries++) {
      try {
        cut.links().set(cut.host(), true);
        break;
      } catch (IOException | InterruptedException e) {
        if (tries == UP_TRIES) {
          upFailed = true;
          problem = e.getMessage();
          return;
        }
      }
    }
    downSeconds = (System.nanoTime() - down) / 1e9;
    roundAtUp = lastRound;
    say(String.format(Locale.ROOT, "host %d's link up again after %.1f s, at round %d", cut.host(), downSeconds,
        roundAtUp));
  }

  @Override
  public void close() throws IOException, InterruptedException {
    ended.countDown();
    if (thread == null) {
      return;
    }
    thread.join();
    if (upFailed) {
      throw new IOException("--cut: host " + cut.host() + "'s link could not be brought up again: " + problem);
    }
    if (problem == null && executors.getAsInt() < executorsBefore) {
      say("waiting for the application's " + executorsBefore + " executors (" + executors.getAsInt() + " now)");
      long start = System.nanoTime();
      boolean back = ExecutorCount.await(executors, executorsBefore, ExecutorCount.WAIT_SECONDS);
      executorsBack = back ? String.format(Locale.ROOT, "; all %d executors back %.1f s after the run", executorsBefore,
          (System.nanoTime() - start) / 1e9) : String.format(Locale.ROOT, "; only %d of %d executors back %d s after "
          + "the run", executors.getAsInt(), executorsBefore, ExecutorCount.WAIT_SECONDS);
    }
  }

  @Override
  public String describe() {
    String what = String.format(Locale.ROOT, "cut %s: ", cut.text());
    if (!struck.get()) {
      return what + "the run ended at round " + lastRound + ", before the cut; ";
    }
    if (problem != null) {
      return what + "the link was not cut: " + problem + "; ";
    }
    return what + String.format(Locale.ROOT, "host %d's link down at round %d for %.1f s%s; at its return the run "
        + "was at round %d%s%s; ", cut.host(), roundAtDown, downSeconds, upEarly ? " (up when the run ended)" : "",
        roundAtUp, roundAtUp == roundAtDown ? " (it had waited)" : "", executorsBack);
  }

  private void say(String line) {
    synchronized (console) {
      console.println("[cut] " + label + ": " + line);
      console.flush();
    }
  }
}
