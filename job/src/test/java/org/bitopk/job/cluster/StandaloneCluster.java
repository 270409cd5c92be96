package org.bitopk.job.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.bitopk.job.ChildJvmOptions;
import org.bitopk.job.SparkJvmOpens;

/**
 * A real Spark standalone cluster on loopback: one Master and N Workers, each its own JVM started from the
 * test classpath (there is no Spark distribution to start them from, only Spark's Maven jars). Executors are
 * separate JVMs launched by the Workers, so tasks, closures and broadcasts really cross process boundaries
 * and serializers.
 *
 * <p>How the application reaches the cluster, and why: {@code mvn test} never runs the {@code package} phase,
 * so the shaded application jar does not exist during tests. Instead {@link #applicationJar()} packs the
 * project's own compiled classes (every directory on the test classpath: this module's classes and test
 * classes, and the sibling modules' classes in a reactor build) into a thin jar, which spark-submit ships to
 * the executors exactly as it ships the real application jar (driver file server, executor class loader).
 * The third-party jars (Spark, DL4J, ND4J natives...) play the part of the Spark installation's {@code jars/}
 * directory: they are the Master's, Workers' and driver's class path and {@code spark.executor.extraClassPath}.
 *
 * <p>{@link #sparkHome()} is a Spark home for the submit scripts: {@code bin/spark-submit} there runs
 * {@code org.apache.spark.deploy.SparkSubmit} from the same jars, so {@code submit/standalone.sh} can be run
 * against this cluster unchanged.
 *
 * <p>The cluster runs with Spark's authentication and RPC encryption, as a production cluster should: every
 * daemon and application shares one fresh secret, which reaches the Master, the Workers and {@link #submit}'s
 * drivers in a properties file only its owner can read ({@link #secretFile()} holds it for the submit scripts),
 * never on a command line.
 *
 * <p>Every process is stopped by its PID in {@link #close()} (and by a shutdown hook should the test JVM
 * exit first), descendants first.
 */
public final class StandaloneCluster implements AutoCloseable {

  /** Spark 3.5 on JDK 17 needs these in every JVM: the build's list (spark-launcher's JavaModuleOptions). */
  public static final List<String> JAVA_OPENS = SparkJvmOpens.options();

  private static final String LOOPBACK = "127.0.0.1";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final Path root;
  private final Path sparkHome;
  private final Path logConfig;
  private final String secret;
  private final Path secretFile;
  private final Path securityConf;
  private final String dependencyClassPath;
  private final Path applicationJar;
  private final int masterPort;
  private final int masterUiPort;
  private final List<Process> workers = new ArrayList<>();
  private final List<Path> workerDirs = new ArrayList<>();
  private final List<Process> submitted = Collections.synchronizedList(new ArrayList<>());
  private final Thread shutdownHook;
  private Process master;
  private int totalCores;
  private volatile boolean closed;

  private StandaloneCluster(Path root) throws IOException {
    this.root = root;
    this.sparkHome = Files.createDirectories(root.resolve("spark-home"));
    Files.createDirectories(sparkHome.resolve("jars"));
    this.logConfig = writeLogConfig(root.resolve("log4j2.properties"));
    this.secret = java.util.HexFormat.of().formatHex(new java.security.SecureRandom().generateSeed(32));
    this.secretFile = writePrivate(root.resolve("secret"), secret + "\n");
    this.securityConf = writePrivate(root.resolve("security.properties"), String.join("\n",
        "spark.authenticate true", "spark.authenticate.secret " + secret, "spark.network.crypto.enabled true",
        "spark.io.encryption.enabled true", ""));
    List<String> entries = List.of(System.getProperty("java.class.path").split(File.pathSeparator));
    this.dependencyClassPath = entries.stream()
        .filter(e -> !Files.isDirectory(Path.of(e)))
        .collect(Collectors.joining(File.pathSeparator));
    this.applicationJar = ThinJar.pack(entries.stream().map(Path::of).filter(Files::isDirectory).toList(),
        root.resolve("bitopk-test-app.jar"));
    writeSparkSubmit(sparkHome.resolve("bin").resolve("spark-submit"));
    this.masterPort = freePort();
    this.masterUiPort = freePort();
    this.shutdownHook = new Thread(this::destroyAll, "standalone-cluster-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /**
   * Starts a Master and {@code workerCount} Workers with {@code coresPerWorker} cores and
   * {@code workerMemory} (e.g. "2g") each, and waits until the Master reports every Worker ALIVE.
   * {@code root} receives the Spark home, logs and the Workers' work directories.
   */
  public static StandaloneCluster start(Path root, int workerCount, int coresPerWorker, String workerMemory)
      throws IOException, InterruptedException {
    if (workerCount < 1 || coresPerWorker < 1) {
      throw new IllegalArgumentException("need at least one worker with one core, got " + workerCount
          + " workers x " + coresPerWorker + " cores");
    }
    StandaloneCluster cluster = new StandaloneCluster(Files.createDirectories(root));
    cluster.totalCores = workerCount * coresPerWorker;
    boolean started = false;
    try {
      cluster.master = cluster.launch("master", "org.apache.spark.deploy.master.Master", "512m", LOOPBACK,
          List.of("--properties-file", cluster.securityConf.toString(),
              "--host", LOOPBACK, "--port", Integer.toString(cluster.masterPort),
              "--webui-port", Integer.toString(cluster.masterUiPort)));
      cluster.awaitAliveWorkers(0);
      for (int i = 0; i < workerCount; i++) {
        Path workDir = Files.createDirectories(root.resolve("worker-" + i));
        cluster.workerDirs.add(workDir);
        // Each Worker (and its executors) on its own loopback address: Spark then sees separate hosts, as on a
        // real cluster, and launches speculative copies (never placed on the original attempt's host).
        String host = workerHost(i);
        cluster.workers.add(cluster.launch("worker-" + i, "org.apache.spark.deploy.worker.Worker", "512m", host,
            List.of("--properties-file", cluster.securityConf.toString(),
                "--host", host, "--port", "0", "--webui-port", Integer.toString(freePort()),
                "--cores", Integer.toString(coresPerWorker), "--memory", workerMemory,
                "--work-dir", workDir.toString(), cluster.masterUrl())));
      }
      cluster.awaitAliveWorkers(workerCount);
      started = true;
      return cluster;
    } finally {
      if (!started) {
        cluster.close();
      }
    }
  }

  public String masterUrl() {
    return "spark://" + LOOPBACK + ":" + masterPort;
  }

  /** A Spark home whose {@code bin/spark-submit} submits with this cluster's jars; {@code jars/} is empty. */
  public Path sparkHome() {
    return sparkHome;
  }

  /** The cluster's shared secret, on the first line of a file only its owner can read (for --secret-file). */
  public Path secretFile() {
    return secretFile;
  }

  /** The shared secret itself: what must appear on no process's command line. */
  public String secret() {
    return secret;
  }

  /** The thin jar of the project's compiled classes (see the class comment). */
  public Path applicationJar() {
    return applicationJar;
  }

  /** Third-party jars: what a Spark installation's jars/ directory and the shaded jar's libraries provide. */
  public String dependencyClassPath() {
    return dependencyClassPath;
  }

  /** Settings every application on this cluster needs: loopback driver, executor class path, quiet logs. */
  public Map<String, String> baseConf() {
    String executorOptions = String.join(" ", JAVA_OPENS) + " -Dlog4j2.configurationFile=" + logConfig.toUri();
    return Map.ofEntries(
        Map.entry("spark.driver.host", LOOPBACK),
        Map.entry("spark.driver.bindAddress", LOOPBACK),
        Map.entry("spark.ui.enabled", "false"),
        Map.entry("spark.executor.extraClassPath", dependencyClassPath),
        Map.entry("spark.executor.extraJavaOptions", executorOptions),
        Map.entry("spark.executor.defaultJavaOptions", ChildJvmOptions.joined()),
        Map.entry("spark.executorEnv.OMP_NUM_THREADS", "1"),
        Map.entry("spark.executor.memory", "1g"),
        // Start only once every Worker's executor is up, else a loaded machine runs every task on the first
        // (cached partitions then stay there). A standalone scheduler counts the registered cores against
        // spark.cores.max and takes the ratio as met when that is unset, so both are needed.
        Map.entry("spark.cores.max", Integer.toString(totalCores)),
        Map.entry("spark.scheduler.minRegisteredResourcesRatio", "1.0"),
        Map.entry("spark.scheduler.maxRegisteredResourcesWaitingTime", "120s"));
  }

  /**
   * Submits {@code mainClass} from {@link #applicationJar()} in client mode: the driver is a new JVM (the
   * returned process), so a test can kill it. {@code conf} is added to {@link #baseConf()}.
   */
  public Process submit(String mainClass, List<String> appArgs, Map<String, String> conf, Path log)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(sparkHome.resolve("bin").resolve("spark-submit").toString());
    command.addAll(List.of("--master", masterUrl(), "--deploy-mode", "client", "--class", mainClass,
        "--properties-file", securityConf.toString()));
    Map<String, String> all = new java.util.TreeMap<>(baseConf());
    all.putAll(conf);
    all.forEach((k, v) -> command.addAll(List.of("--conf", k + "=" + v)));
    command.add(applicationJar.toString());
    command.addAll(appArgs);
    return start(command, log);
  }

  /** Starts any command (e.g. a submit script) with this cluster's environment, output to {@code log}. */
  public Process start(List<String> command, Path log) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    environment(builder.environment());
    Process process = builder.start();
    submitted.add(process);
    return process;
  }

  /** Waits for {@code process} to end; kills it and fails with the log's tail after {@code timeout}. */
  public static int await(Process process, Duration timeout, Path log) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      destroyTree(process.toHandle());
      throw new AssertionError("process " + process.pid() + " still running after " + timeout + "; log:\n"
          + tail(log, 60));
    }
    return process.exitValue();
  }

  /** The executor JVMs Worker {@code workerIndex} currently runs (children of the Worker process). */
  public List<ProcessHandle> executors(int workerIndex) {
    return workers.get(workerIndex).toHandle().children()
        .filter(p -> commandLine(p).contains("CoarseGrainedExecutorBackend"))
        .toList();
  }

  /**
   * The full command line: /proc when there is one (ProcessHandle.Info drops the arguments of very long
   * command lines, and an executor's class path is long), else what ProcessHandle reports.
   */
  private static String commandLine(ProcessHandle process) {
    Path proc = Path.of("/proc", Long.toString(process.pid()), "cmdline");
    try {
      return new String(Files.readAllBytes(proc), StandardCharsets.UTF_8).replace('\0', ' ');
    } catch (IOException | UnsupportedOperationException e) {
      return process.info().commandLine().orElse("");
    }
  }

  /** Every executor JVM on the cluster. */
  public List<ProcessHandle> executors() {
    List<ProcessHandle> all = new ArrayList<>();
    for (int i = 0; i < workers.size(); i++) {
      all.addAll(executors(i));
    }
    return all;
  }

  /**
   * Kills (SIGKILL, no shutdown hooks: a crash) the executor JVM of Worker {@code workerIndex} and returns
   * its PID; waits until it is gone. Fails if that Worker runs no executor.
   */
  public long killExecutor(int workerIndex) throws InterruptedException {
    List<ProcessHandle> running = executors(workerIndex);
    if (running.isEmpty()) {
      throw new IllegalStateException("worker " + workerIndex + " runs no executor");
    }
    ProcessHandle victim = running.get(0);
    victim.destroyForcibly();
    try {
      victim.onExit().get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("executor " + victim.pid() + " did not die", e);
    }
    return victim.pid();
  }

  /** The Master's view ({@code /json/} of its web UI): workers, active and completed applications. */
  public JsonNode masterState() throws IOException, InterruptedException {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + LOOPBACK + ":" + masterUiPort + "/json/"))
        .timeout(Duration.ofSeconds(5)).build();
    HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
    return new ObjectMapper().readTree(response.body());
  }

  /** Stops every process this cluster started, by PID: submitted drivers, Workers (and executors), Master. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    destroyAll();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or has run: nothing left to undo
    }
  }

  /** Deletes the cluster's directory (logs, work directories); call after {@link #close()}. */
  public void deleteFiles() {
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort: a temp directory left behind is harmless
    }
  }

  public static String tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(cannot read " + log + ": " + e + ")";
    }
  }

  private void destroyAll() {
    synchronized (submitted) {
      submitted.forEach(p -> destroyTree(p.toHandle()));
    }
    workers.forEach(p -> destroyTree(p.toHandle()));
    if (master != null) {
      destroyTree(master.toHandle());
    }
  }

  private static void destroyTree(ProcessHandle process) {
    List<ProcessHandle> tree = Stream.concat(process.descendants(), Stream.of(process)).toList();
    tree.forEach(ProcessHandle::destroy);
    for (ProcessHandle p : tree) {
      try {
        p.onExit().get(10, TimeUnit.SECONDS);
      } catch (Exception notYet) {
        p.destroyForcibly();
      }
    }
  }

  private void environment(Map<String, String> env) {
    env.put("SPARK_HOME", sparkHome.toString());
    // executors die with "Cannot find any build directories" without it: the Scala of this line (2.13 or 2.12)
    env.put("SPARK_SCALA_VERSION", scala.util.Properties.versionNumberString().replaceAll("^(\\d+\\.\\d+).*", "$1"));
    env.put("SPARK_LOCAL_IP", LOOPBACK);
    env.put("OMP_NUM_THREADS", "1");
    env.remove("SPARK_CONF_DIR");
  }

  /** The loopback address Worker i binds to: 127.0.0.(i + 1). */
  public static String workerHost(int workerIndex) {
    return "127.0.0." + (workerIndex + 1);
  }

  private Process launch(String name, String mainClass, String heap, String localIp, List<String> args)
      throws IOException {
    List<String> command = new ArrayList<>(javaCommand(heap));
    command.add(mainClass);
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(root.resolve(name + ".log").toFile());
    environment(builder.environment());
    builder.environment().put("SPARK_LOCAL_IP", localIp);
    return builder.start();
  }

  private List<String> javaCommand(String heap) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx" + heap);
    command.addAll(ChildJvmOptions.CHEAP_START);
    command.addAll(JAVA_OPENS);
    command.add("-Dlog4j2.configurationFile=" + logConfig.toUri());
    command.add("-cp");
    command.add(dependencyClassPath);
    return command;
  }

  private void awaitAliveWorkers(int expected) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      if (!master.isAlive()) {
        throw new IllegalStateException("Spark Master exited with " + master.exitValue() + ":\n"
            + tail(root.resolve("master.log"), 40));
      }
      for (int i = 0; i < workers.size(); i++) {
        if (!workers.get(i).isAlive()) {
          throw new IllegalStateException("Spark Worker " + i + " exited with " + workers.get(i).exitValue()
              + ":\n" + tail(root.resolve("worker-" + i + ".log"), 40));
        }
      }
      try {
        JsonNode state = masterState();
        last = state.toString();
        if ("ALIVE".equals(state.path("status").asText()) && state.path("aliveworkers").asInt(-1) == expected) {
          return;
        }
      } catch (IOException notUpYet) {
        last = notUpYet.toString();
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("cluster not up after " + START_TIMEOUT + " (want " + expected
        + " alive workers); Master says: " + last);
  }

  private void writeSparkSubmit(Path script) throws IOException {
    Files.createDirectories(script.getParent());
    StringBuilder text = new StringBuilder("#!/bin/bash\n")
        .append("# spark-submit for a Spark made of Maven jars: runs SparkSubmit directly. The launcher's\n")
        .append("# handling of spark.driver.memory / extraJavaOptions does not apply: the flags are fixed here,\n")
        .append("# followed, as the launcher does, by $SPARK_SUBMIT_OPTS.\n")
        .append("exec ");
    for (String part : javaCommand("2g")) {
      text.append(quote(part)).append(' ');
    }
    text.append("${SPARK_SUBMIT_OPTS:-} org.apache.spark.deploy.SparkSubmit \"$@\"\n");
    Files.writeString(script, text);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  private static Path writePrivate(Path file, String text) throws IOException {
    Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    return Files.writeString(file, text);
  }

  /** A log4j2 configuration for a cluster's JVMs: warnings, and bitopk's own lines from INFO, on stderr. */
  static Path writeLogConfig(Path file) throws IOException {
    Files.writeString(file, String.join("\n",
        "rootLogger.level = warn",
        "rootLogger.appenderRef.stdout.ref = console",
        "appender.console.type = Console",
        "appender.console.name = console",
        "appender.console.target = SYSTEM_ERR",
        "appender.console.layout.type = PatternLayout",
        "appender.console.layout.pattern = %d{HH:mm:ss.SSS} %p %c{1}: %m%n%ex",
        "logger.bitopk.name = org.bitopk",
        "logger.bitopk.level = info",
        ""));
    return file;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
      return socket.getLocalPort();
    }
  }

  /** Every Worker's work directory, holding app-ID/EXECUTOR/stderr of each executor. */
  public List<Path> workerDirs() {
    return List.copyOf(workerDirs);
  }

  /** For diagnostics: the Worker's work directory, holding app-ID/EXECUTOR/stderr of each executor. */
  public Path workerDir(int workerIndex) {
    return workerDirs.get(workerIndex);
  }

  /** For diagnostics: the tail of every executor's stderr under every Worker. */
  public String executorLogs(int lines) {
    StringBuilder all = new StringBuilder();
    for (Path dir : workerDirs) {
      try (Stream<Path> walk = Files.walk(dir)) {
        for (Path f : walk.filter(p -> p.getFileName().toString().equals("stderr")).sorted().toList()) {
          all.append("== ").append(f).append('\n').append(tail(f, lines)).append('\n');
        }
      } catch (IOException e) {
        all.append("(cannot list ").append(dir).append(")\n");
      }
    }
    return all.toString();
  }

  Optional<Process> master() {
    return Optional.ofNullable(master);
  }
}
