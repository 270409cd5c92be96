package org.bitopk.lab.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The network lab's hooks as the driver runs them, against stand-in scripts: one that succeeds gives its output, one
 * that fails is one line with its exit status and its output's last lines, and one that hangs with its output open
 * is stopped at the limit, with the process it started.
 */
class LabHookTest {
  @TempDir
  Path tmp;

  private String script(String name, String body) throws IOException {
    Path script = tmp.resolve(name);
    Files.writeString(script, "#!/bin/sh\n" + body);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    return script.toString();
  }

  @Test
  void aHookThatSucceedsGivesItsOutput() throws Exception {
    String hook = script("ok.sh", "echo \"args $1 $2\"\necho 95.1\n");
    assertEquals("args 2 down\n95.1\n", new LabHook("BITOPK_TEST_HOOK", hook, 10, true).run("do it", "2", "down"));
  }

  @Test
  void aHookThatFailsIsOneLineWithItsStatusAndLastLines() throws Exception {
    String hook = script("fail.sh", "echo first\necho second\necho third\necho 'link.sh: no such host' >&2\n"
        + "exit 3\n");
    IOException e = assertThrows(IOException.class,
        () -> new LabHook("BITOPK_TEST_HOOK", hook, 10, true).run("set host 7's link down", "7", "down"));
    assertEquals("the lab's hook " + hook + " 7 down (BITOPK_TEST_HOOK) failed to set host 7's link down "
        + "(exit status 3: second | third | link.sh: no such host)", e.getMessage());
    assertFalse(e.getMessage().contains("\n"));

    String silent = script("silent.sh", "exit 4\n");
    assertEquals("the lab's hook " + silent + " none (BITOPK_TEST_HOOK) failed to set the links to none "
        + "(exit status 4)", assertThrows(IOException.class,
            () -> new LabHook("BITOPK_TEST_HOOK", silent, 10, false).run("set the links to none", "none"))
        .getMessage());

    String missing = tmp.resolve("missing.sh").toString();
    assertTrue(assertThrows(IOException.class,
        () -> new LabHook("BITOPK_TEST_HOOK", missing, 10, true).run("set the links to none", "none")).getMessage()
        .startsWith("the lab's hook " + missing + " none (BITOPK_TEST_HOOK) could not set the links to none: it did "
            + "not start ("));
  }

  @Test
  void aHookThatHangsWithItsOutputOpenIsStoppedAtTheLimitWithItsChildren() throws Exception {
    // the sleep inherits the hook's output and holds it open; the hook waits for it
    Path pids = tmp.resolve("pids");
    String hook = script("hang.sh", "echo started\nsleep 600 &\necho \"$$ $!\" > '" + pids + "'\nwait\n");
    long start = System.nanoTime();
    IOException e = assertThrows(IOException.class,
        () -> new LabHook("BITOPK_TEST_HOOK", hook, 1, true).run("set host 2's link up", "2", "up"));
    double seconds = (System.nanoTime() - start) / 1e9;
    assertEquals("the lab's hook " + hook + " 2 up (BITOPK_TEST_HOOK) did not set host 2's link up within 1 s "
        + "(stopped, its child processes too)", e.getMessage());
    // it returned at the limit, not when the sleep would have ended
    assertTrue(seconds >= 1 && seconds < 60, "returned after " + seconds + " s");
    List<Long> started = List.of(Files.readString(pids).strip().split(" ")).stream().map(Long::parseLong).toList();
    assertEquals(2, started.size());
    for (long pid : started) {
      Optional<ProcessHandle> process = ProcessHandle.of(pid);
      assertFalse(process.isPresent() && process.get().isAlive(), "process " + pid + " still runs");
    }
  }
}
