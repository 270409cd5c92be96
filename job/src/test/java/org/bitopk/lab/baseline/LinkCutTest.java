package org.bitopk.lab.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --cut}'s side of the network lab's link hook, against a stand-in hook that records its calls: the link goes
 * down once the run reports the cut's round, not before, and up again after the cut's seconds, or when the run ends
 * sooner; a run that never reaches the round is not cut; closing waits for the executors the run started with; a
 * hook that fails to cut is reported in the row, one that fails to bring the link back ends the comparison; the
 * value is checked.
 */
class LinkCutTest {
  @TempDir
  Path tmp;

  private final StringWriter console = new StringWriter();

  /** A hook that appends "HOST STATE" to calls.txt and exits with {@code status}. */
  private LinkSwitch hook(int status) throws IOException {
    Path script = tmp.resolve("link.sh");
    Files.writeString(script, "#!/bin/sh\necho \"$1 $2\" >> '" + tmp.resolve("calls.txt") + "'\nexit " + status
        + "\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    return new LinkSwitch(script.toString(), 4);
  }

  private List<String> calls() throws IOException {
    Path calls = tmp.resolve("calls.txt");
    return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
  }

  private LinkCutRun run(LinkSwitch links, long round, long seconds, IntSupplier executors) {
    return new LinkCutRun(new LinkCut(2, round, seconds, links), "ddp-dense@100mbit", executors,
        new PrintWriter(console, true));
  }

  private void awaitCalls(int n) throws Exception {
    for (int i = 0; i < 200 && calls().size() < n; i++) {
      Thread.sleep(50);
    }
  }

  @Test
  void theLinkGoesDownAtTheRoundAndUpAfterTheSeconds() throws Exception {
    LinkCutRun cut = run(hook(0), 5, 1, () -> 4);
    for (long r = 1; r <= 4; r++) {
      cut.reached(r);
    }
    Thread.sleep(200);
    assertEquals(List.of(), calls(), "not before round 5");
    assertEquals("", cut.sinceStrike());
    cut.reached(5);
    awaitCalls(2);
    assertEquals(List.of("2 down", "2 up"), calls());
    assertTrue(cut.sinceStrike().endsWith("s after the link went down"), cut.sinceStrike());
    cut.close();
    String described = cut.describe();
    assertTrue(described.startsWith("cut 2:r5:1: host 2's link down at round 5 for 1."), described);
    assertTrue(described.contains("at its return the run was at round 5 (it had waited)"), described);
    assertFalse(described.contains("up when the run ended"), described);
    assertTrue(console.toString().contains("[cut] ddp-dense@100mbit: host 2's link down at round 5"),
        console.toString());
  }

  @Test
  void aRunThatEndsDuringTheCutBringsTheLinkUpAndWaitsForItsExecutors() throws Exception {
    // 4 executors at the start, 3 while the host is away, 4 again after two more looks
    AtomicInteger looks = new AtomicInteger();
    LinkCutRun cut = run(hook(0), 3, 3600, () -> {
      int n = looks.getAndIncrement();
      return n == 0 ? 4 : n <= 3 ? 3 : 4;
    });
    cut.reached(7);
    for (int i = 0; i < 200 && !console.toString().contains("down at round 7"); i++) {
      Thread.sleep(50);
    }
    cut.reached(9);
    cut.close();
    assertEquals(List.of("2 down", "2 up"), calls());
    String described = cut.describe();
    assertTrue(described.contains("down at round 7 for ") && described.contains("(up when the run ended)")
        && described.contains("at its return the run was at round 9;")
        && described.contains("all 4 executors back"), described);
    assertTrue(looks.get() >= 5, "looked for the executors until they were back: " + looks.get());
  }

  @Test
  void aRunThatNeverReachesTheRoundIsNotCut() throws Exception {
    LinkCutRun cut = run(hook(0), 100, 80, () -> 4);
    cut.reached(40);
    cut.close();
    assertEquals(List.of(), calls());
    assertEquals("cut 2:r100:80: the run ended at round 40, before the cut; ", cut.describe());
  }

  @Test
  void aHookThatCannotCutIsReportedAndOneThatCannotRestoreTheLinkEndsTheComparison() throws Exception {
    LinkCutRun refused = run(hook(3), 1, 1, () -> 4);
    refused.reached(1);
    refused.close();
    assertTrue(refused.describe().contains("the link was not cut: the lab's hook") && refused.describe()
        .contains("exit status 3"), refused.describe());

    // the hook cuts, then fails every time it is asked to bring the link up
    Path script = tmp.resolve("down-only.sh");
    Files.writeString(script, "#!/bin/sh\n[ \"$2\" = down ]\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    LinkCutRun stuck = new LinkCutRun(new LinkCut(1, 1, 1, new LinkSwitch(script.toString(), 4)), "x", () -> 4,
        new PrintWriter(console, true));
    stuck.reached(1);
    IOException e = assertThrows(IOException.class, stuck::close);
    assertTrue(e.getMessage().startsWith("--cut: host 1's link could not be brought up again"), e.getMessage());
  }

  @Test
  void theValueNamesAWorkerHostOfTheLabARoundAndSeconds() throws IOException {
    LinkSwitch links = hook(0);
    for (String bad : new String[] {"2:100:80", "2:r100", "x", "2:r100:80s", "-1:r1:1"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LinkCut.parse(bad, false));
      assertTrue(e.getMessage().startsWith("--cut: expected HOST:rROUND:SECONDS"), e.getMessage());
    }
    assertTrue(assertThrows(IllegalArgumentException.class, () -> new LinkCut(5, 100, 80, links)).getMessage()
        .equals("--cut: host 5 is not a worker host of the lab (1..4)"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> new LinkCut(0, 100, 80, links)).getMessage()
        .startsWith("--cut: host 0 is not a worker host"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> new LinkCut(2, 0, 80, links)).getMessage()
        .startsWith("--cut: expected a round >= 1"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> LinkCut.parse("2:r100:80", true)).getMessage()
        .startsWith("--cut: not with --lr-grid"));
    // this JVM is not under the lab: no hook in its environment
    assertTrue(assertThrows(IllegalArgumentException.class, () -> LinkCut.parse("2:r100:80", false)).getMessage()
        .startsWith("--cut: cuts a network lab host's link, so it runs only under submit/netlab.sh"));
  }
}
