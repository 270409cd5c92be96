package org.bitopk.cli;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bitopk.datasets.Datasets;
import org.bitopk.job.BadInputException;
import org.bitopk.job.config.TrainingConfig;

/**
 * Fashion-MNIST, the default data set, comes as the Debian package {@code dataset-fashion-mnist}. When its default
 * directory lacks the files, the main job installs the package itself where it may (as root, or through
 * {@code sudo}), saying so in one line, and otherwise stops with one line giving the exact command to run: so a
 * fresh machine needs no set-up step of its own.
 */
public final class FashionMnistPackage {
  static final String PACKAGE = "dataset-fashion-mnist";
  static final String DATASET = "fashion-mnist";
  static final Path DIRECTORY = Path.of(Datasets.FASHION_MNIST_DEFAULT);
  /** The command a user without the rights to install would run as root. */
  static final String ROOT_COMMAND = "apt-get update && apt-get install -y " + PACKAGE;

  /** Who may install on this machine. */
  enum Rights { ROOT, SUDO, NONE }

  /**
   * What the job does: run {@code commands} in order after printing {@code line}; with no commands, {@code line} is
   * the failure to report.
   */
  record Plan(List<List<String>> commands, String line) {
    boolean installs() {
      return !commands.isEmpty();
    }
  }

  private FashionMnistPackage() {}

  /** ROOT for user id 0 (sudo or not), SUDO when another user has {@code sudo} on the path, else NONE. */
  static Rights rights(long userId, boolean sudoOnPath) {
    return userId == 0 ? Rights.ROOT : sudoOnPath ? Rights.SUDO : Rights.NONE;
  }

  static Plan plan(Rights rights) {
    List<String> prefix = rights == Rights.SUDO ? List.of("sudo") : List.of();
    switch (rights) {
      case ROOT:
      case SUDO:
        List<List<String>> commands = List.of(with(prefix, "apt-get", "update", "-qq"),
            with(prefix, "apt-get", "install", "-y", "-qq", PACKAGE));
        return new Plan(commands, "Fashion-MNIST is missing from " + DIRECTORY + ": installing the Debian package "
            + "(" + String.join(" ", commands.get(1)) + ")");
      default:
        return new Plan(List.of(), "Fashion-MNIST is missing from " + DIRECTORY + " and this user can neither "
            + "install packages nor run sudo: as root run '" + ROOT_COMMAND + "', or pass --data DIR");
    }
  }

  private static List<String> with(List<String> prefix, String... command) {
    List<String> all = new ArrayList<>(prefix);
    all.addAll(List.of(command));
    return List.copyOf(all);
  }

  /** Whether {@code program} is an executable file in one of the directories of {@code searchPath}. */
  static boolean onPath(String program, String searchPath) {
    if (searchPath == null) {
      return false;
    }
    for (String dir : searchPath.split(File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the default directory holds the training images, raw or gzipped. */
  static boolean present(Path directory) {
    return Files.isRegularFile(directory.resolve("train-images-idx3-ubyte.gz"))
        || Files.isRegularFile(directory.resolve("train-images-idx3-ubyte"));
  }

  /** Whether a run of {@code config} reads Fashion-MNIST from the package's directory (not a resumed run's data). */
  static boolean wanted(TrainingConfig config) {
    return !config.resume() && config.table().isEmpty() && config.data().isEmpty()
        && DATASET.equals(config.dataset());
  }

  /**
   * Installs the package when the default directory lacks it and this user may; prints one line to {@code console}
   * first.
   *
   * @throws BadInputException with one line when it may not, or when the installation fails
   */
  static void ensureInstalled(PrintWriter console) {
    if (present(DIRECTORY)) {
      return;
    }
    Plan plan = plan(rights(userId().orElse(-1L), onPath("sudo", System.getenv("PATH"))));
    if (!plan.installs()) {
      throw new BadInputException(plan.line());
    }
    console.println("bitopk: " + plan.line());
    console.flush();
    for (List<String> command : plan.commands()) {
      run(command);
    }
    if (!present(DIRECTORY)) {
      throw new BadInputException("installed " + PACKAGE + " but " + DIRECTORY + " still lacks "
          + "train-images-idx3-ubyte[.gz]; pass --data DIR");
    }
  }

  private static void run(List<String> command) {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.INHERIT); // sudo may ask for a password on the terminal
    builder.environment().put("DEBIAN_FRONTEND", "noninteractive");
    try {
      Process process = builder.start();
      ByteArrayOutputStream output = new ByteArrayOutputStream();
      try (InputStream in = process.getInputStream()) {
        in.transferTo(output);
      }
      int status = process.waitFor();
      if (status != 0) {
        String text = output.toString(StandardCharsets.UTF_8).strip();
        String last = text.isEmpty() ? "no output" : text.substring(text.lastIndexOf('\n') + 1);
        throw new BadInputException("installing " + PACKAGE + " failed: '" + String.join(" ", command)
            + "' exited with " + status + " (" + last + "); as root run '" + ROOT_COMMAND + "', or pass --data DIR");
      }
    } catch (IOException e) {
      throw new BadInputException("installing " + PACKAGE + " failed: cannot run '" + String.join(" ", command)
          + "' (" + e.getMessage() + "); as root run '" + ROOT_COMMAND + "', or pass --data DIR", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BadInputException("installing " + PACKAGE + " was interrupted", e);
    }
  }

  /** This process's user id (Linux: the owner of /proc/self), or empty where the system does not say. */
  static Optional<Long> userId() {
    try {
      Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
      return Optional.of(((Number) uid).longValue());
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
