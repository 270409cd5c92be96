package org.bitopk.lab.baseline;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Follows a file in which a run's rank 0 writes the rounds it has completed after every round ({@code ddp_peer.py
 * --progress}), replaced atomically: a thread of the driver reads it every {@value #POLL_MILLIS} ms and tells the
 * run's fault, until closed.
 */
final class ProgressFile implements AutoCloseable {
  static final long POLL_MILLIS = 100;

  private final Thread thread;
  private volatile boolean closed;

  private ProgressFile(Path file, RunFault fault) {
    thread = new Thread(() -> {
      while (!closed) {
        read(file).ifPresent(fault::reached);
        try {
          Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "progress-" + file.getFileName());
    thread.setDaemon(true);
  }

  /** Starts following {@code file} for {@code fault}; a run without a fault planned is not followed. */
  static ProgressFile follow(Path file, RunFault fault) {
    ProgressFile progress = new ProgressFile(file, fault);
    if (fault.planned()) {
      progress.thread.start();
    }
    return progress;
  }

  /** The rounds the file says, empty while it does not exist yet. */
  static java.util.OptionalLong read(Path file) {
    try {
      String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).strip();
      return text.matches("[0-9]{1,18}") ? java.util.OptionalLong.of(Long.parseLong(text))
          : java.util.OptionalLong.empty();
    } catch (IOException absent) {
      return java.util.OptionalLong.empty();
    }
  }

  @Override
  public void close() throws InterruptedException {
    closed = true;
    thread.interrupt();
    thread.join();
  }
}
