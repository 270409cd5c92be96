package org.bitopk.lab.baseline;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The Python side of the DDP systems: the interpreter ({@value #PYTHON_VARIABLE}, else Debian's {@code
 * /usr/bin/python3}, for which Debian's {@code python3-torch} is built, else {@code python3} on the path), whether
 * it has PyTorch with gloo, and the script {@value #SCRIPT}, a resource of this package copied next to the problem
 * it trains on.
 */
final class PyTorchPeer {
  static final String PYTHON_VARIABLE = "BITOPK_PYTHON";
  static final String SCRIPT = "ddp_peer.py";
  /** What installs PyTorch on Debian 12 (1.13.1, with DDP, gloo and DDP's communication hooks). */
  static final String INSTALL = "apt-get install --no-install-recommends python3-torch";
  private static final long CHECK_SECONDS = 120;
  /** The interpreters found to have PyTorch: each is asked once per JVM (starting one costs seconds). */
  private static final java.util.Set<String> CHECKED = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private PyTorchPeer() {}

  static String python() {
    String given = System.getenv(PYTHON_VARIABLE);
    if (given != null && !given.isBlank()) {
      return given;
    }
    return Files.isExecutable(java.nio.file.Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
  }

  /**
   * Empty when the interpreter imports PyTorch's distributed package with gloo; otherwise one line saying what is
   * missing and the command that installs it.
   */
  static Optional<String> missing() {
    String python = python();
    if (CHECKED.contains(python)) {
      return Optional.empty();
    }
    String problem;
    try {
      Process p = new ProcessBuilder(python, "-c", "import torch.distributed as d, sys; "
          + "sys.exit(0 if d.is_available() and d.is_gloo_available() else 3)").redirectErrorStream(true).start();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!p.waitFor(CHECK_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        problem = python + " did not import torch within " + CHECK_SECONDS + " s";
      } else if (p.exitValue() == 0) {
        CHECKED.add(python);
        return Optional.empty();
      } else {
        problem = p.exitValue() == 3 ? python + "'s torch has no gloo backend"
            : python + " cannot import torch (" + output.lines().reduce((a, b) -> b).orElse("no output") + ")";
      }
    } catch (IOException e) {
      problem = "cannot run " + python + " (" + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      problem = "interrupted while checking " + python;
    }
    return Optional.of("the DDP systems need PyTorch: " + problem + "; as root run 'submit/install-torch.sh' ("
        + INSTALL + "), or set " + PYTHON_VARIABLE + " to a Python that has torch");
  }

  /** Copies the script into {@code dir} (a local directory every worker host sees) and returns its path. */
  static java.nio.file.Path script(java.nio.file.Path dir) throws IOException {
    java.nio.file.Path target = dir.resolve(SCRIPT);
    try (InputStream in = PyTorchPeer.class.getResourceAsStream(SCRIPT)) {
      if (in == null) {
        throw new IOException(SCRIPT + " is missing from the class path (a resource of " + PyTorchPeer.class
            .getPackageName() + ")");
      }
      java.nio.file.Path temporary = Files.createTempFile(dir, SCRIPT, ".tmp");
      Files.copy(in, temporary, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      Files.move(temporary, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
    return target;
  }

  /** The command line of the script: the interpreter, the script, then {@code arguments}. */
  static List<String> command(java.nio.file.Path script, List<String> arguments) {
    List<String> command = new java.util.ArrayList<>(List.of(python(), script.toString()));
    command.addAll(arguments);
    return command;
  }
}
