package org.bitopk.lab.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The warm-up in front of each measured system, with recording stand-ins for the systems (no Spark needed). */
class WarmedUpSystemTest {
  private static final ComparisonSettings SETTINGS = new ComparisonSettings("synthetic", null, 4, 32, 0.1, 0.01,
      42, 50, 150, 3, 0.85);
  private static final Trace TRACE = Trace.of(List.of(new TracePoint(0, 0, 0, 0.1, 2.3)));

  @TempDir
  java.nio.file.Path tmp;

  /** Records the settings and directory of every call, writes a file there, and fails on the calls asked to. */
  private static final class Recording implements ComparedSystem {
    final List<Context> calls = new ArrayList<>();
    final boolean throwInWarmUp;
    final boolean reportFailureInWarmUp;

    Recording(boolean throwInWarmUp, boolean reportFailureInWarmUp) {
      this.throwInWarmUp = throwInWarmUp;
      this.reportFailureInWarmUp = reportFailureInWarmUp;
    }

    @Override
    public String name() {
      return "recording";
    }

    @Override
    public SystemResult run(Context context) throws IOException {
      calls.add(context);
      FileSystem fs = FileSystem.getLocal(new Configuration());
      try (OutputStream out = fs.create(new Path(context.directory(), "recording/run.txt"))) {
        out.write(1);
      }
      boolean warmUp = calls.size() == 1;
      if (warmUp && throwInWarmUp) {
        throw new IllegalStateException("no native library\nsecond line");
      }
      if (warmUp && reportFailureInWarmUp) {
        return SystemResult.failed(name(), "its details", TRACE, "fit did not return within 65 s");
      }
      return SystemResult.ok(name(), warmUp ? "warm-up" : "measured", TRACE);
    }
  }

  private ComparedSystem.Context context() {
    return new ComparedSystem.Context(null, SETTINGS, null, new Path(tmp.toUri()),
        new PrintWriter(new StringWriter()), "recording");
  }

  private static FileSystem local() throws IOException {
    return FileSystem.getLocal(new Configuration());
  }

  @Test
  void theWarmUpGetsItsBudgetOneEpochAndAScratchDirectoryThatIsRemovedThenTheSystemIsMeasuredAsAsked()
      throws Exception {
    Recording system = new Recording(false, false);
    SystemResult result = WarmedUpSystem.run(system, context(), 2.5, local());

    assertEquals(2, system.calls.size());
    ComparedSystem.Context warmUp = system.calls.get(0);
    assertEquals(SETTINGS.withBudget(2.5, 1), warmUp.settings());
    assertEquals(2.5, warmUp.settings().maxSeconds());
    assertEquals(1, warmUp.settings().epochs());
    assertEquals(new Path(new Path(tmp.toUri()), WarmedUpSystem.SCRATCH), warmUp.directory());
    assertEquals(SETTINGS, system.calls.get(1).settings());
    assertEquals(new Path(tmp.toUri()), system.calls.get(1).directory());

    assertEquals("measured", result.details(), "the measured run's result, not the warm-up's");
    assertNull(result.failure());
    assertFalse(Files.exists(tmp.resolve(WarmedUpSystem.SCRATCH)), "the warm-up's scratch directory is removed");
    assertTrue(Files.exists(tmp.resolve("recording/run.txt")), "the measured run's files stay");
  }

  @Test
  void aWarmUpInRoundsEndsAtThemOrTheSystemsBudgetDoesNotStopAtTheTargetAndLeavesNothing() throws Exception {
    Recording system = new Recording(false, false);
    ComparisonSettings stopping = SETTINGS.stoppingAtTarget();
    ComparisonSettings rounds = stopping.forWarmUp(200);
    assertTrue(WarmedUpSystem.warmUp(system, context(), rounds, local()).isEmpty());
    assertEquals(1, system.calls.size());
    ComparisonSettings used = system.calls.get(0).settings();
    assertEquals(200, used.maxRounds());
    assertFalse(used.stopAtTarget(), "a warm-up trains its rounds even past the target");
    assertTrue(used.pastBudget(0, 200) && !used.pastBudget(0, 199), "its rounds end it");
    assertTrue(used.pastBudget(SETTINGS.maxSeconds(), 1), "or the system's own clock budget");
    assertEquals(SETTINGS.epochs(), used.epochs());
    assertEquals(new Path(new Path(tmp.toUri()), WarmedUpSystem.SCRATCH), system.calls.get(0).directory());
    assertFalse(Files.exists(tmp.resolve(WarmedUpSystem.SCRATCH)));
    assertTrue(stopping.done(10, 5, 0.85) && !SETTINGS.done(10, 5, 0.85), "--stop-at-target stops at 85 %");
    assertFalse(stopping.done(10, 5, 0.849));
  }

  @Test
  void noWarmUpWhenItsSecondsAreZero() throws Exception {
    Recording system = new Recording(false, false);
    WarmedUpSystem.run(system, context(), 0, local());
    assertEquals(1, system.calls.size());
    assertEquals(SETTINGS, system.calls.get(0).settings(), "its one call is the measured run, with the full budget");
    assertEquals(new Path(tmp.toUri()), system.calls.get(0).directory());
  }

  @Test
  void aWarmUpThatThrowsFailsTheSystemWithoutAMeasuredAttempt() throws Exception {
    Recording system = new Recording(true, false);
    SystemResult result = WarmedUpSystem.run(system, context(), 1, local());
    assertEquals(1, system.calls.size(), "not measured after a failed warm-up");
    assertEquals("in its warm-up: java.lang.IllegalStateException: no native library", result.failure());
    assertTrue(result.trace().last().isEmpty(), "no trace: nothing was measured");
    assertFalse(Files.exists(tmp.resolve(WarmedUpSystem.SCRATCH)));
  }

  @Test
  void aWarmUpThatReportsAFailureFailsTheSystemWithoutAMeasuredAttempt() throws Exception {
    Recording system = new Recording(false, true);
    SystemResult result = WarmedUpSystem.run(system, context(), 1, local());
    assertEquals(1, system.calls.size());
    assertEquals("in its warm-up: fit did not return within 65 s", result.failure());
    assertEquals("its details", result.details());
    assertTrue(result.trace().last().isEmpty());
  }
}
