package org.bitopk.job.output;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.hadoop.fs.FSError;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ShutdownHookManager;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exclusive ownership of an output directory for the lifetime of one run (or resume): the lease file
 * {@value #FILE} in the directory, created atomically before anything else is written there, holding the run
 * id, host, process id and start time of its holder. The holder rewrites it every {@link #REFRESH_EVERY} with
 * the current time; a second run or resume into the directory finds the file and fails at once, naming the
 * holder.
 *
 * <p>A lease is stale, and the next run takes it over with a warning, when its holder was on this host and
 * that process is gone (killed, crashed), or when it has not been refreshed for {@link #STALE_AFTER} (a holder
 * on another host that died; hosts' clocks must agree to well within that). Taking over is not atomic on
 * every file system: should two runs take over the same stale lease at once, the one whose lease is
 * overwritten notices at its next refresh and stops (see {@link #check()}).
 *
 * <p>Creation is exclusive: on the local file system through {@code O_CREAT|O_EXCL} (Hadoop's local
 * {@code create(overwrite = false)} only checks, then creates), elsewhere through
 * {@code create(overwrite = false)}, which HDFS decides atomically on the NameNode. Object stores offer no
 * atomic create: there the lease guards against mistakes, not against a race within milliseconds.
 */
public final class RunLease implements AutoCloseable {
  public static final String FILE = "_bitopk.lock";
  public static final Duration REFRESH_EVERY = Duration.ofSeconds(10);
  public static final Duration STALE_AFTER = Duration.ofSeconds(120);
  /** Runs before Hadoop closes its file systems (priority 10) and before Spark stops (30 to 50). */
  static final int SHUTDOWN_PRIORITY = 60;
  /** How long a reader waits for a lease file whose holder is still writing it. */
  private static final Duration READ_PATIENCE = Duration.ofSeconds(3);

  private static final Logger LOG = LoggerFactory.getLogger(RunLease.class);

  private final FileSystem fs;
  private final Path directory;
  private final Path file;
  /** The highest directory {@link #acquire} created; empty when the run directory existed. */
  private final Optional<Path> createdRoot;
  private final LeaseHolder mine;
  private final ScheduledExecutorService refresher;
  private final Runnable shutdownHook;
  /** Why this run no longer holds the lease; null while it does. */
  private volatile @Nullable String lost;
  /** The file system the run writes through once its manifest is open: records every entry it creates. */
  private volatile RecordingFileSystem recording;
  /** The run's manifest {@link #recording} records into, once it is open. */
  private volatile @Nullable RunManifest manifest;
  private boolean closed;

  private RunLease(FileSystem fs, Path directory, Optional<Path> createdRoot, LeaseHolder mine) {
    this.fs = fs;
    this.directory = directory;
    this.file = new Path(directory, FILE);
    this.createdRoot = createdRoot;
    this.mine = mine;
    this.refresher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "bitopk-lease-refresh");
      t.setDaemon(true);
      return t;
    });
    this.shutdownHook = this::close;
  }

  /**
   * Creates {@code directory} if needed (the probe that it is writable) and takes its lease for
   * {@code runId}; a stale lease is taken over after reporting it to {@code warnings}.
   *
   * @throws OutputDirectoryException when the directory cannot be created or written, or another run holds it
   */
  public static RunLease acquire(FileSystem fs, Path directory, String runId, Consumer<String> warnings) {
    Optional<Path> createdRoot = topmostMissing(fs, directory);
    try {
      if (!fs.mkdirs(directory)) {
        throw new OutputDirectoryException("--output " + directory + ": cannot create the directory"
            + OutputPathProblems.whyNotCreated(fs, directory).map(why -> ": " + why).orElse(" (is "
            + createdRoot.map(Path::getParent).orElse(directory)
            + " writable?)"));
      }
    } catch (ParentNotDirectoryException | org.apache.hadoop.fs.FileAlreadyExistsException e) {
      throw new OutputDirectoryException("--output " + directory + ": cannot create the directory: a path above "
          + "it is a file (" + e.getMessage() + ")", e);
    } catch (IOException | FSError e) {
      throw new OutputDirectoryException("--output " + directory + ": cannot create the directory: "
          + OutputPathProblems.whyNotCreated(fs, directory).orElse(message(e)), e);
    }
    Instant now = Instant.now();
    LeaseHolder mine = new LeaseHolder(runId, hostName(), ProcessHandle.current().pid(), processStart(ProcessHandle.current()),
        now, now, UUID.randomUUID().toString());
    RunLease lease = new RunLease(fs, directory, createdRoot, mine);
    boolean taken = false;
    try {
      lease.take(warnings);
      taken = true;
    } finally {
      if (!taken) {
        lease.removeCreatedDirectories();
      }
    }
    lease.refresher.scheduleWithFixedDelay(lease::refresh, REFRESH_EVERY.toMillis(), REFRESH_EVERY.toMillis(),
        TimeUnit.MILLISECONDS);
    ShutdownHookManager.get().addShutdownHook(lease.shutdownHook, SHUTDOWN_PRIORITY);
    return lease;
  }

  /** The current holder of {@code directory}'s lease, if a lease file is there and readable. */
  public static Optional<LeaseHolder> holder(FileSystem fs, Path directory) {
    try {
      return Optional.ofNullable(readPatiently(fs, new Path(directory, FILE)));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Why the lease in {@code directory} may be taken over, or null if its holder counts as alive (or there is
   * no lease file).
   */
  public static @Nullable String staleness(FileSystem fs, Path directory) throws IOException {
    Path file = new Path(directory, FILE);
    FileStatus status;
    try {
      status = fs.getFileStatus(file);
    } catch (FileNotFoundException none) {
      return null;
    }
    return staleness(readPatiently(fs, file), status, Instant.now());
  }

  /** The directory this lease owns. */
  public Path directory() {
    return directory;
  }

  /** The file system to write the directory through: recording into the run's manifest once it is open. */
  public FileSystem fileSystem() {
    RecordingFileSystem r = recording;
    return r != null ? r : fs;
  }

  /** From now on, writes through {@link #fileSystem()} are recorded in {@code manifest}. */
  public void recordWritesIn(RunManifest manifest) {
    manifest.checkedBy(this::check);   // a run that lost the directory never rewrites the new holder's manifest
    this.manifest = manifest;
    recording = new RecordingFileSystem(fs, manifest);
  }

  /** The run's manifest, once {@link #recordWritesIn} was called. */
  public Optional<RunManifest> manifest() {
    return Optional.ofNullable(manifest);
  }

  /** This lease's holder record (run id, host, pid, times). */
  public LeaseHolder holder() {
    return mine;
  }

  /**
   * Reads the lease file now (not only at the periodic refresh) and throws when it is no longer this run's:
   * call before every write into the directory, so a run that lost it writes nothing more. A lease file that
   * cannot be read for another reason (a lost connection) is left to the refresh to judge.
   *
   * @throws LeaseLostException when another run took this directory over or the lease file was removed
   */
  public void check() {
    if (lost == null) {
      try {
        lost = lossIn(readPatiently(fs, file));
      } catch (FileNotFoundException removed) {
        lost = "the lease file " + file + " was removed while this run held it";
      } catch (IOException | RuntimeException | FSError unreadable) {
        LOG.warn("cannot read the lease {}: {}", file, unreadable.toString());
      }
    }
    String reason = lost;
    if (reason != null) {
      throw new LeaseLostException(reason + "; this run stops so that two runs never write into one directory");
    }
  }

  /**
   * Releases the lease (deletes the lease file if it is still this run's) and removes the directories
   * {@link #acquire} created when nothing was written into them.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    refresher.shutdownNow();
    try {
      ShutdownHookManager.get().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // called from the hook itself
    }
    try {
      LeaseHolder current = readPatiently(fs, file);
      if (current != null && current.token().equals(mine.token())) {
        fs.delete(file, false);
      }
    } catch (IOException | RuntimeException | FSError e) {
      LOG.warn("cannot release the lease {}: {}", file, e.toString());
    }
    removeCreatedDirectories();
  }

  private void take(Consumer<String> warnings) {
    try {
      if (createExclusively(mine.toJson())) {
        return;
      }
      FileStatus status = fs.getFileStatus(file);
      LeaseHolder other = readPatiently(fs, file);
      String stale = staleness(other, status, Instant.now());
      if (stale == null) {
        throw inUse(other);
      }
      warnings.accept("taking over the stale lease of " + (other == null ? "an unknown run" : other.describe(Instant.now()))
          + " on " + directory + ": " + stale);
      fs.delete(file, false);
      if (createExclusively(mine.toJson())) {
        return;
      }
      throw inUse(readPatiently(fs, file));
    } catch (FileNotFoundException vanished) {
      // the holder released it between our create and our look: try once more
      try {
        if (createExclusively(mine.toJson())) {
          return;
        }
      } catch (IOException | FSError e) {
        throw notWritable(e);
      }
      throw inUse(null);
    } catch (IOException | FSError e) {
      throw notWritable(e);
    }
  }

  private OutputDirectoryException inUse(LeaseHolder other) {
    return new OutputDirectoryException("--output " + directory + " is in use by "
        + (other == null ? "another run (its lease file is being written)" : other.describe(Instant.now()))
        + ": wait for it to end or choose another directory (a lease not refreshed for " + STALE_AFTER.toSeconds()
        + " s is taken over; lease file " + file + ")");
  }

  private OutputDirectoryException notWritable(Throwable e) {
    return new OutputDirectoryException("--output " + directory + " is not writable: cannot create " + file + ": "
        + message(e), e);
  }

  /** Creates the lease file with {@code content} unless it exists; false if it exists. */
  private boolean createExclusively(byte[] content) throws IOException {
    File local = localFile(file);
    if (local != null) {
      try {
        Files.write(local.toPath(), content, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        return true;
      } catch (FileAlreadyExistsException exists) {
        return false;
      }
    }
    OutputStream out;
    try {
      out = fs.create(file, false);
    } catch (org.apache.hadoop.fs.FileAlreadyExistsException exists) {
      return false;
    } catch (IOException e) {
      if (fs.exists(file)) {
        return false;
      }
      throw e;
    }
    try (OutputStream o = out) {
      o.write(content);
    }
    return true;
  }

  /** Refreshes now instead of at the next period (tests). */
  void refreshNow() {
    refresh();
  }

  /** Why the lease file's {@code current} holder (null: unreadable) is not this run, or null when it is. */
  private @Nullable String lossIn(@Nullable LeaseHolder current) {
    if (current == null) {
      return "the lease file " + file + " no longer holds this run's lease";
    }
    return current.token().equals(mine.token()) ? null
        : "the output directory " + directory + " was taken over by " + current.describe(Instant.now());
  }

  private void refresh() {
    try {
      lost = lossIn(readPatiently(fs, file));
      if (lost != null) {
        LOG.error("{}", lost);
        refresher.shutdown();
        return;
      }
      LeaseHolder refreshed = new LeaseHolder(mine.run(), mine.host(), mine.pid(), mine.processStarted(), mine.started(),
          Instant.now(), mine.token());
      overwrite(refreshed.toJson());
    } catch (IOException | RuntimeException | FSError e) {
      LOG.warn("cannot refresh the lease {}: {}", file, e.toString());
    }
  }

  /** Replaces the lease file's content; readers see the old or the new content, or (HDFS) wait for it. */
  private void overwrite(byte[] content) throws IOException {
    File local = localFile(file);
    if (local != null) {
      java.nio.file.Path temporary = local.toPath().resolveSibling(AtomicFiles.TEMPORARY_PREFIX + FILE + "-"
          + UUID.randomUUID().toString().substring(0, 8));
      Files.write(temporary, content);
      try {
        Files.move(temporary, local.toPath(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, local.toPath(), StandardCopyOption.REPLACE_EXISTING);
      } finally {
        Files.deleteIfExists(temporary);
      }
      return;
    }
    try (OutputStream out = fs.create(file, true)) {
      out.write(content);
    }
  }

  /**
   * Null while the holder counts as alive; otherwise why it does not: its process on this host is gone, or
   * it has not refreshed the lease for {@link #STALE_AFTER}.
   */
  static @Nullable String staleness(@Nullable LeaseHolder holder, FileStatus status, Instant now) {
    Instant touched = Instant.ofEpochMilli(status.getModificationTime());
    if (holder == null) {
      long age = Duration.between(touched, now).toSeconds();
      return age > STALE_AFTER.toSeconds() ? "its lease file is unreadable and " + age + " s old" : null;
    }
    if (holder.host().equals(hostName())) {
      Optional<ProcessHandle> process = ProcessHandle.of(holder.pid());
      boolean alive = process.isPresent() && process.get().isAlive()
          && (holder.processStarted().isEmpty() || holder.processStarted().equals(processStart(process.get())));
      if (!alive) {
        return "its process " + holder.pid() + " is no longer running on this host";
      }
    }
    Instant last = holder.refreshed().isAfter(touched) ? holder.refreshed() : touched;
    long age = Duration.between(last, now).toSeconds();
    if (age > STALE_AFTER.toSeconds()) {
      return "it was last refreshed " + age + " s ago (more than " + STALE_AFTER.toSeconds() + " s)";
    }
    return null;
  }

  /**
   * Reads a lease file, waiting briefly while it is empty or partial (its holder is still writing it); null when it
   * stays unreadable.
   */
  private static @Nullable LeaseHolder readPatiently(FileSystem fs, Path file) throws IOException {
    long deadline = System.nanoTime() + READ_PATIENCE.toNanos();
    while (true) {
      byte[] bytes;
      File local = localFile(fs, file);
      if (local != null) {
        try {
          bytes = Files.readAllBytes(local.toPath());
        } catch (java.nio.file.NoSuchFileException none) {
          throw new FileNotFoundException(file.toString());
        }
      } else {
        try (InputStream in = fs.open(file)) {
          bytes = in.readAllBytes();
        }
      }
      LeaseHolder holder = LeaseHolder.fromJson(bytes);
      if (holder != null || System.nanoTime() > deadline) {
        return holder;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  private File localFile(Path path) {
    return localFile(fs, path);
  }

  private static File localFile(FileSystem fs, Path path) {
    return DirectoryEntries.localFile(fs, path);
  }

  /** The highest ancestor of {@code directory} (itself included) that does not exist yet; empty when none. */
  private static Optional<Path> topmostMissing(FileSystem fs, Path directory) {
    Path missing = null;
    try {
      for (Path p = directory; p != null && !fs.exists(p); p = p.getParent()) {
        missing = p;
      }
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
    return Optional.ofNullable(missing);
  }

  /** Deletes the directories {@link #acquire} created, from the run directory upwards, while they are empty. */
  private void removeCreatedDirectories() {
    if (createdRoot.isEmpty()) {
      return;
    }
    try {
      for (Path p = directory; p != null; p = p.getParent()) {
        FileStatus[] entries = fs.listStatus(p);
        if (p.equals(directory) && Arrays.stream(entries).allMatch(e -> RunManifest.isManifestFile(e.getPath()
            .getName()))) {
          for (FileStatus manifest : entries) {   // a manifest naming nothing: the run recorded nothing here
            fs.delete(manifest.getPath(), false);
          }
          entries = fs.listStatus(p);
        }
        if (entries.length > 0 || !fs.delete(p, false) || p.equals(createdRoot.get())) {
          return;
        }
      }
    } catch (IOException | RuntimeException | FSError e) {
      // best effort: an empty directory left behind is harmless
    }
  }

  /** This host's name as lease files record it. */
  public static String hostName() {
    return HostName.VALUE;
  }

  /** Looked up once: resolving the local host name can take a while on a misconfigured resolver. */
  private static final class HostName {
    static final String VALUE = lookUp();

    private static String lookUp() {
      try {
        return InetAddress.getLocalHost().getHostName();
      } catch (IOException e) {
        return "unknown-host";
      }
    }
  }

  private static String processStart(ProcessHandle process) {
    return process.info().startInstant().map(Instant::toString).orElse("");
  }

  private static String message(Throwable e) {
    Throwable cause = e instanceof FSError && e.getCause() != null ? e.getCause() : e;
    return cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
  }
}
