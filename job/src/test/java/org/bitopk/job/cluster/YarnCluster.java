package org.bitopk.job.cluster;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.bitopk.job.ChildJvmOptions;

/**
 * A real YARN on loopback: a ResourceManager and one NodeManager ({@link MiniYARNCluster}) in the test JVM.
 * The NodeManager launches the ApplicationMaster and the executors as separate JVMs from {@code
 * launch_container.sh}, as on a real cluster; every service binds to 127.0.0.1.
 *
 * <p>As for {@link StandaloneCluster}, there is no Spark distribution: {@link #sparkHome()} holds a
 * {@code bin/spark-submit} that runs {@code SparkSubmit} from the test class path (with {@code
 * $HADOOP_CONF_DIR} first, as Spark's launcher puts it), and an empty {@code jars/} directory. The containers
 * get the third-party jars through {@code spark.yarn.jars} as {@code local:} URIs ({@link #sparkConf()}: the
 * same machine, so the paths hold on the "node"), and the project's classes through the thin application jar,
 * which YARN localizes like the real one.
 *
 * <p>The NodeManager offers 4 GB (MiniYARNCluster's fixed size), enough for an ApplicationMaster (the driver,
 * cluster mode) and two executors of 768 MB heap + 384 MB overhead each; memory checks are off, as in every
 * MiniYARNCluster, since ND4J's off-heap buffers count against the process.
 */
public final class YarnCluster implements AutoCloseable {
  private static final String LOOPBACK = "127.0.0.1";

  private final Path root;
  private final MiniYARNCluster yarn;
  private final Path confDir;
  private final Path sparkHome;
  private final Path applicationJar;
  private final Path logConfig;
  private final String dependencyClassPath;

  private YarnCluster(Path root, MiniYARNCluster yarn) throws IOException {
    this.root = root;
    this.yarn = yarn;
    this.confDir = Files.createDirectories(root.resolve("hadoop-conf"));
    try (OutputStream out = Files.newOutputStream(confDir.resolve("yarn-site.xml"))) {
      yarn.getConfig().writeXml(out);
    }
    List<String> entries = List.of(System.getProperty("java.class.path").split(File.pathSeparator));
    this.dependencyClassPath = entries.stream().filter(e -> !Files.isDirectory(Path.of(e)))
        .collect(Collectors.joining(File.pathSeparator));
    this.applicationJar = ThinJar.pack(
        entries.stream().map(Path::of).filter(Files::isDirectory).toList(), root.resolve("bitopk-test-app.jar"));
    this.logConfig = StandaloneCluster.writeLogConfig(root.resolve("log4j2-executors.properties"));
    this.sparkHome = Files.createDirectories(root.resolve("spark-home"));
    Files.createDirectories(sparkHome.resolve("jars"));
    writeSparkSubmit(sparkHome.resolve("bin").resolve("spark-submit"));
  }

  /** True when this machine's host name resolves to loopback: YARN advertises its services by host name. */
  public static boolean hostNameIsLoopback() {
    try {
      return InetAddress.getByName(MiniYARNCluster.getHostname()).isLoopbackAddress();
    } catch (IOException e) {
      return false;
    }
  }

  /** Starts the ResourceManager and the NodeManager; {@code root} receives configuration, jar and logs. */
  public static YarnCluster start(Path root) throws IOException {
    Files.createDirectories(root);
    YarnConfiguration conf = new YarnConfiguration();
    for (String key : List.of(YarnConfiguration.RM_BIND_HOST, YarnConfiguration.NM_BIND_HOST,
        "yarn.timeline-service.bind-host", "yarn.nodemanager.webapp.bind-host")) {
      conf.set(key, LOOPBACK);
    }
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    conf.setInt(YarnConfiguration.NM_VCORES, 4);
    // FIFO: the capacity scheduler needs a queue file (capacity-scheduler.xml) and keeps ApplicationMasters
    // to 10% of the cluster; one application at a time needs neither.
    conf.set(YarnConfiguration.RM_SCHEDULER,
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler");
    // A nearly full disk would mark the only NodeManager unhealthy and nothing would ever start.
    conf.setFloat("yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage", 100.0f);
    conf.setInt("yarn.nodemanager.disk-health-checker.min-free-space-per-disk-mb", 0);
    conf.set("yarn.nodemanager.delete.debug-delay-sec", "600"); // keep container logs for diagnostics
    // Containers are granted on the NodeManager's heartbeat (every second by default): on loopback it costs
    // nothing to beat ten times as often, and each container request is answered sooner.
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 100);
    MiniYARNCluster yarn = new MiniYARNCluster("bitopk-yarn", 1, 1, 1);
    yarn.init(conf);
    yarn.start();
    try {
      return new YarnCluster(root, yarn);
    } catch (IOException | RuntimeException e) {
      yarn.stop();
      throw e;
    }
  }

  /** The directory to point HADOOP_CONF_DIR at: yarn-site.xml with the ResourceManager's addresses. */
  public Path hadoopConfDir() {
    return confDir;
  }

  public Path sparkHome() {
    return sparkHome;
  }

  public Path applicationJar() {
    return applicationJar;
  }

  /** Settings an application on this cluster needs on top of the project's spark-defaults.conf. */
  public Map<String, String> sparkConf() {
    String javaHome = System.getProperty("java.home");
    Map<String, String> conf = new LinkedHashMap<>();
    // What a Spark installation's jars/ would give: local: URIs are already on the node, so they go on the
    // containers' class path without being uploaded (an empty jars/ would make YARN unpack an empty archive).
    conf.put("spark.yarn.jars", Stream.of(dependencyClassPath.split(File.pathSeparator))
        .map(jar -> "local:" + jar).collect(Collectors.joining(",")));
    conf.put("spark.yarn.appMasterEnv.JAVA_HOME", javaHome);
    conf.put("spark.executorEnv.JAVA_HOME", javaHome);
    conf.put("spark.yarn.appMasterEnv.SPARK_LOCAL_IP", LOOPBACK);
    conf.put("spark.executorEnv.SPARK_LOCAL_IP", LOOPBACK);
    conf.put("spark.driver.memoryOverhead", "384m");
    conf.put("spark.executor.memoryOverhead", "384m");
    conf.put("spark.yarn.stagingDir", root.resolve("staging").toUri().toString());
    conf.put("spark.ui.enabled", "false");
    // The ApplicationMaster fetches granted containers on its heartbeat (3 s by default) and spark-submit polls
    // the application's state every second: shorter waits for the same events.
    conf.put("spark.yarn.scheduler.heartbeat.interval-ms", "500");
    conf.put("spark.yarn.report.interval", "250ms");
    // Before the project's extraJavaOptions, which spark-defaults.conf sets and these do not replace; the
    // executors' bitopk lines from INFO in their containers' stderr
    conf.put("spark.driver.defaultJavaOptions", ChildJvmOptions.joined());
    conf.put("spark.executor.defaultJavaOptions", ChildJvmOptions.joined() + " -Dlog4j2.configurationFile="
        + logConfig.toUri());
    return conf;
  }

  /** The environment of a submit script run against this cluster. */
  public Map<String, String> environment() {
    return Map.of(
        "HADOOP_CONF_DIR", confDir.toString(),
        "SPARK_HOME", sparkHome.toString(),
        "SPARK_LOCAL_IP", LOOPBACK,
        "PATH", sparkHome.resolve("bin") + ":/usr/bin:/bin");
  }

  /** The last {@code lines} lines of every container's stdout and stderr: what failed inside YARN. */
  public String containerLogs(int lines) {
    StringBuilder all = new StringBuilder();
    try (Stream<Path> walk = Files.walk(yarn.getTestWorkDir().toPath())) {
      for (Path f : walk.filter(p -> p.toString().contains("container_")
          && (p.getFileName().toString().equals("stderr") || p.getFileName().toString().equals("stdout")))
          .sorted().toList()) {
        all.append("== ").append(f).append('\n').append(StandaloneCluster.tail(f, lines)).append('\n');
      }
    } catch (IOException e) {
      all.append("(cannot list ").append(yarn.getTestWorkDir()).append(": ").append(e).append(")\n");
    }
    return all.toString();
  }

  /** The applications the ResourceManager knows and their final states, e.g. {@code [SUCCEEDED]}. */
  public List<String> finalStatuses() {
    List<String> statuses = new ArrayList<>();
    yarn.getResourceManager().getRMContext().getRMApps().values()
        .forEach(app -> statuses.add(app.getFinalApplicationStatus().toString()));
    return statuses;
  }

  @Override
  public void close() {
    yarn.stop();
  }

  private void writeSparkSubmit(Path script) throws IOException {
    Files.createDirectories(script.getParent());
    StringBuilder text = new StringBuilder("#!/bin/bash\n")
        .append("# spark-submit for a Spark made of Maven jars: SparkSubmit with $HADOOP_CONF_DIR on the class path.\n")
        .append("exec ").append(quote(Path.of(System.getProperty("java.home"), "bin", "java").toString()))
        .append(" -Xmx512m ").append(ChildJvmOptions.joined());
    for (String option : StandaloneCluster.JAVA_OPENS) {
      text.append(' ').append(quote(option));
    }
    text.append(" -cp \"$HADOOP_CONF_DIR\":").append(quote(dependencyClassPath))
        .append(" org.apache.spark.deploy.SparkSubmit \"$@\"\n");
    Files.writeString(script, text);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
