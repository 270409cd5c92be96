package org.bitopk.job.submit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.bitopk.job.spark.BitopkKryoRegistrator;
import org.bitopk.job.spark.ExecutorWarmUpAgent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The submit scripts, run with bash against a fake {@code spark-submit} that records its arguments: what
 * reaches spark-submit must name a class that exists, carry every setting of spark-defaults.conf (read here
 * independently with java.util.Properties), and pass the job's arguments through untouched.
 */
class SubmitScriptsTest {

  /** The standalone script's shared secret from the environment (the other scripts ignore it). */
  static final String SECRET_VARIABLE = "BITOPK_SPARK_SECRET";
  static final String SECRET = "0123456789abcdef-test-secret";

  static final Path SUBMIT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent()
      .resolve("submit");

  /** Per script: the options it needs to get as far as spark-submit, and settings it must add. */
  static Stream<Arguments> scripts() {
    return Stream.of(
        Arguments.of("local.sh", List.of("--cores", "3"), Map.of(), List.of("--master", "local[3]")),
        Arguments.of("standalone.sh", List.of("--master", "spark://10.0.0.1:7077", "--executors", "3",
                "--executor-cores", "2"),
            Map.of("spark.cores.max", "6", "spark.executor.cores", "2"),
            List.of("--master", "spark://10.0.0.1:7077", "--deploy-mode", "client")),
        Arguments.of("yarn.sh", List.of("--executors", "4", "--queue", "ml"),
            Map.of("spark.executor.instances", "4", "spark.yarn.queue", "ml",
                "spark.yarn.appMasterEnv.OMP_NUM_THREADS", "1", "spark.yarn.maxAppAttempts", "1"),
            List.of("--master", "yarn", "--deploy-mode", "cluster")),
        Arguments.of("k8s.sh", List.of("--master", "k8s://https://kube:6443", "--image", "reg/bitopk:1",
                "--executors", "5"),
            Map.of("spark.kubernetes.container.image", "reg/bitopk:1", "spark.executor.instances", "5",
                "spark.kubernetes.driverEnv.OMP_NUM_THREADS", "1"),
            List.of("--master", "k8s://https://kube:6443", "--deploy-mode", "cluster")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scripts")
  void passesClassDefaultsAndJobArgumentsToSparkSubmit(String script, List<String> options,
      Map<String, String> expectedConf, List<String> expectedPairs, @TempDir Path tmp) throws Exception {
    Path jar = Files.createFile(tmp.resolve("app.jar"));
    List<String> args = new ArrayList<>(options);
    args.addAll(List.of("--jar", jar.toString(), "--conf", "spark.executor.memory=7g",
        "--conf", "spark.locality.wait.process=10min", "--",
        "train", "--workers", "3", "--out", "dir with space"));
    Result result = run(script, args, fakeSparkSubmit(tmp), tmp,
        Map.of("HADOOP_CONF_DIR", tmp.toString(), SECRET_VARIABLE, SECRET));
    assertEquals(0, result.exit, result.toString());
    List<String> argv = recordedArgv(tmp);

    // The class spark-submit is asked to run exists.
    String mainClass = valueAfter(argv, "--class");
    assertEquals("org.bitopk.cli.Main", mainClass);
    Class<?> main = Class.forName(mainClass);
    assertEquals(void.class, main.getMethod("main", String[].class).getReturnType());

    // Job arguments follow the jar, in order and intact.
    int jarAt = argv.indexOf(jar.toString());
    assertTrue(jarAt > 0, "jar missing from " + argv);
    assertEquals(List.of("train", "--workers", "3", "--out", "dir with space"), argv.subList(jarAt + 1, argv.size()));

    // Every setting of the defaults file arrives; later --conf of the same key wins (spark-submit's rule).
    Map<String, String> conf = effectiveConf(argv.subList(0, jarAt));
    Properties defaults = new Properties();
    defaults.load(new StringReader(Files.readString(SUBMIT.resolve("spark-defaults.conf"))));
    assertFalse(defaults.isEmpty());
    for (String key : defaults.stringPropertyNames()) {
      if (!key.equals("spark.executor.memory")) {
        assertEquals(defaults.getProperty(key), conf.get(key), key);
      }
    }
    assertEquals("7g", conf.get("spark.executor.memory"), "explicit --conf overrides the defaults file");
    assertEquals("10min", conf.get("spark.locality.wait.process"), "a setting the defaults file lacks arrives too");
    expectedConf.forEach((k, v) -> assertEquals(v, conf.get(k), k));
    for (int i = 0; i < expectedPairs.size(); i += 2) {
      assertEquals(expectedPairs.get(i + 1), valueAfter(argv, expectedPairs.get(i)), expectedPairs.get(i));
    }
  }

  /**
   * yarn.sh --warm-executors adds the agent (the application jar YARN gives every container as __app__.jar) to the
   * executors' JVM options as they will be passed: the defaults file's, or the user's own --conf, kept whole. A jar
   * whose manifest does not name the agent, on which every executor's JVM would fail to start, is one line.
   */
  @Test
  void yarnWarmExecutorsAddsTheAgentToTheExecutorsOptionsItWillPass(@TempDir Path tmp) throws Exception {
    Path jar = jarWithManifest(tmp.resolve("app.jar"), "Premain-Class", ExecutorWarmUpAgent.class.getName());
    Properties defaults = new Properties();
    defaults.load(new StringReader(Files.readString(SUBMIT.resolve("spark-defaults.conf"))));
    String key = "spark.executor.extraJavaOptions";
    Map<List<String>, String> expected = new LinkedHashMap<>();
    expected.put(List.of(), defaults.getProperty(key) + " -javaagent:__app__.jar");
    expected.put(List.of("--conf", key + "=-Dmine=1"), "-Dmine=1 -javaagent:__app__.jar");
    for (Map.Entry<List<String>, String> c : expected.entrySet()) {
      List<String> args = new ArrayList<>(List.of("--warm-executors", "--jar", jar.toString()));
      args.addAll(c.getKey());
      args.addAll(List.of("--", "train"));
      Result result = run("yarn.sh", args, fakeSparkSubmit(tmp), tmp,
          Map.of("HADOOP_CONF_DIR", tmp.toString(), SECRET_VARIABLE, SECRET));
      assertEquals(0, result.exit, result.toString());
      List<String> argv = recordedArgv(tmp);
      assertEquals(c.getValue(), effectiveConf(argv.subList(0, argv.indexOf(jar.toString()))).get(key),
          c.getKey().toString());
    }
    Result client = run("yarn.sh", List.of("--warm-executors", "--deploy-mode", "client", "--jar", jar.toString(),
        "--", "train"), fakeSparkSubmit(tmp), tmp, Map.of("HADOOP_CONF_DIR", tmp.toString()));
    assertEquals(2, client.exit, client.toString());
    assertEquals(1, client.stderr.lines().count(), client.toString());
    assertTrue(client.stderr.contains("--warm-executors needs --deploy-mode cluster: the executors' agent is the "
        + "application jar, which YARN gives every container as __app__.jar only in cluster mode"), client.stderr);
    Path old = jarWithManifest(tmp.resolve("old.jar"), "Main-Class", "org.bitopk.cli.Main");
    Result without = run("yarn.sh", List.of("--warm-executors", "--jar", old.toString(), "--", "train"),
        fakeSparkSubmit(tmp), tmp, Map.of("HADOOP_CONF_DIR", tmp.toString(), SECRET_VARIABLE, SECRET));
    assertEquals(2, without.exit, without.toString());
    assertEquals(1, without.stderr.lines().count(), without.toString());
    assertTrue(without.stderr.contains(old + ": its manifest lacks 'Premain-Class: " + ExecutorWarmUpAgent.class
        .getName() + "', which --warm-executors needs (every executor's JVM would fail to start): build the jar "
        + "again"), without.stderr);
  }

  /**
   * standalone.sh --warm-executors PATH and k8s.sh --warm-executors give the agent at the jar's path on the hosts
   * (absolute, as an executor starts in a directory of its own) and in the image (a local:// jar); a path that
   * cannot work, or a copy here that does not name the agent, is one line.
   */
  @Test
  void standaloneAndK8sWarmExecutorsGiveTheAgentAtTheJarsPathWhereTheExecutorsStart(@TempDir Path tmp)
      throws Exception {
    Path jar = jarWithManifest(tmp.resolve("app.jar"), "Premain-Class", ExecutorWarmUpAgent.class.getName());
    Map<String, String> env = Map.of(SECRET_VARIABLE, SECRET);
    String key = "spark.executor.extraJavaOptions";
    List<String> standalone = List.of("--master", "spark://10.0.0.1:7077", "--jar", jar.toString());
    for (String path : List.of(jar.toString(), "/srv/bitopk/bitopk.jar")) {   // checked here / only on the hosts
      List<String> args = new ArrayList<>(standalone);
      args.addAll(List.of("--warm-executors", path, "--", "train"));
      Result result = run("standalone.sh", args, fakeSparkSubmit(tmp), tmp, env);
      assertEquals(0, result.exit, result.toString());
      List<String> argv = recordedArgv(tmp);
      assertTrue(effectiveConf(argv.subList(0, argv.indexOf(jar.toString()))).get(key)
          .endsWith(" -javaagent:" + path), path);
    }
    List<String> relative = new ArrayList<>(standalone);
    relative.addAll(List.of("--warm-executors", "app.jar", "--", "train"));
    assertOneLine(run("standalone.sh", relative, fakeSparkSubmit(tmp), tmp, env), "--warm-executors expects the "
        + "application jar's absolute path on every worker host (an executor starts in a directory of its own), "
        + "got 'app.jar'");
    Path old = jarWithManifest(tmp.resolve("old.jar"), "Main-Class", "org.bitopk.cli.Main");
    List<String> withOld = new ArrayList<>(standalone);
    withOld.addAll(List.of("--warm-executors", old.toString(), "--", "train"));
    assertOneLine(run("standalone.sh", withOld, fakeSparkSubmit(tmp), tmp, env), old + ": its manifest lacks "
        + "'Premain-Class: " + ExecutorWarmUpAgent.class.getName() + "'");

    List<String> k8s = List.of("--master", "k8s://https://kube:6443", "--image", "reg/bitopk:1", "--warm-executors");
    List<String> args = new ArrayList<>(k8s);
    args.addAll(List.of("--", "train"));
    Result result = run("k8s.sh", args, fakeSparkSubmit(tmp), tmp, env);
    assertEquals(0, result.exit, result.toString());
    List<String> argv = recordedArgv(tmp);
    String inImage = argv.get(argv.indexOf("train") - 1);
    assertTrue(inImage.startsWith("local:///opt/bitopk/bitopk_"), inImage);
    assertTrue(effectiveConf(argv.subList(0, argv.indexOf(inImage))).get(key)
        .endsWith(" -javaagent:" + inImage.substring("local://".length())), argv.toString());
    List<String> remote = new ArrayList<>(k8s);
    remote.addAll(List.of("--jar", "https://repo.example/bitopk.jar", "--", "train"));
    assertOneLine(run("k8s.sh", remote, fakeSparkSubmit(tmp), tmp, env), "--warm-executors needs the application "
        + "jar inside the image (--jar local:///PATH), got 'https://repo.example/bitopk.jar': the agent starts with "
        + "the executor's JVM, before Spark fetches anything");
  }

  private static void assertOneLine(Result result, String expected) {
    assertEquals(2, result.exit, result.toString());
    assertEquals(1, result.stderr.lines().count(), result.toString());
    assertTrue(result.stderr.contains(expected), result.stderr);
  }

  /** A jar with one file and a manifest of {@code name: value}. */
  private static Path jarWithManifest(Path jar, String name, String value) throws IOException {
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().putValue(name, value);
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
      out.putNextEntry(new JarEntry("a.txt"));
      out.write(1);
      out.closeEntry();
    }
    return jar;
  }

  @Test
  void defaultsCarryKryoRegistratorsThatExistAndSparksModuleOptions() throws Exception {
    Properties defaults = new Properties();
    defaults.load(new StringReader(Files.readString(SUBMIT.resolve("spark-defaults.conf"))));
    assertEquals("org.apache.spark.serializer.KryoSerializer", defaults.getProperty("spark.serializer"));
    String registrators = defaults.getProperty("spark.kryo.registrator");
    assertTrue(registrators.contains(BitopkKryoRegistrator.class.getName()), registrators);
    for (String name : registrators.split(",")) {
      Class<?> registrator = Class.forName(name.trim());
      assertTrue(org.apache.spark.serializer.KryoRegistrator.class.isAssignableFrom(registrator), name);
    }
    assertEquals("1", defaults.getProperty("spark.executorEnv.OMP_NUM_THREADS"));
    for (String side : List.of("driver", "executor")) {
      List<String> options = Arrays.asList(defaults.getProperty("spark." + side + ".extraJavaOptions").split("\\s+"));
      for (String required : SparkOpensTest.sparksOwnList()) {
        assertTrue(options.contains(required), side + " options lack " + required);
      }
      long maxBytes = bytes(option(options, "-Dorg.bytedeco.javacpp.maxbytes="));
      long maxPhysical = bytes(option(options, "-Dorg.bytedeco.javacpp.maxphysicalbytes="));
      long heap = bytes(defaults.getProperty("spark." + side + ".memory"));
      long overhead = bytes(defaults.getProperty("spark." + side + ".memoryOverhead"));
      assertTrue(maxBytes < overhead, side + ": ND4J buffers must fit in memoryOverhead");
      assertTrue(heap + maxBytes < maxPhysical, side + ": process cap must allow heap + ND4J buffers");
      assertTrue(maxPhysical < heap + overhead, side + ": process cap must stay below the container size");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"local.sh", "standalone.sh", "yarn.sh", "k8s.sh"})
  void helpExitsZeroAndDescribesTheOptions(String script, @TempDir Path tmp) throws Exception {
    Result result = run(script, List.of("--help"), "", tmp);
    assertEquals(0, result.exit, result.toString());
    assertTrue(result.stdout.startsWith("Usage: " + script), result.stdout);
    for (String option : List.of("--jar", "--conf", "--defaults", "--dry-run")) {
      assertTrue(result.stdout.contains(option), script + " --help lacks " + option);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"local.sh", "standalone.sh", "yarn.sh", "k8s.sh"})
  void withoutSparkSubmitFailsWithOneClearLine(String script, @TempDir Path tmp) throws Exception {
    for (String path : List.of("", "/usr/bin:/bin")) {
      Result result = run(script, List.of("--jar", "/nonexistent.jar"), path, tmp);
      assertEquals(2, result.exit, "a refusal like any other: " + result);
      assertEquals(1, result.stderr.lines().count(), result.toString());
      assertTrue(result.stderr.startsWith(script + ": error: spark-submit not found on PATH"), result.stderr);
      assertEquals("", result.stdout);
    }
  }

  /** An example in --help is copied as it is: the job must know every option it passes. */
  @ParameterizedTest
  @ValueSource(strings = {"local.sh", "standalone.sh", "yarn.sh", "k8s.sh", "netlab.sh"})
  void helpExamplesPassOnlyOptionsTheJobKnows(String script, @TempDir Path tmp) throws Exception {
    Result result = run(script, List.of("--help"), "/usr/bin:/bin", tmp);
    assertEquals(0, result.exit, result.toString());
    String example = result.stdout.substring(result.stdout.indexOf("Example:")).replace("\\\n", " ");
    String jobArgs = example.substring(example.indexOf(" -- ") + 4).lines().findFirst().orElseThrow();
    assertTrue(jobArgs.startsWith("train "), jobArgs);
    java.io.StringWriter help = new java.io.StringWriter();
    assertEquals(0, org.bitopk.cli.Main.execute(new String[] {"train", "--help"}, null,
        new java.io.PrintWriter(help, true), new java.io.PrintWriter(new java.io.StringWriter(), true)));
    Stream.of(jobArgs.split("\\s+")).filter(a -> a.startsWith("--")).forEach(option ->
        assertTrue(java.util.regex.Pattern.compile("(?<![\\w-])" + option + "(?![\\w-])").matcher(help.toString())
            .find(), script + " --help's example passes " + option + ", which train does not know: " + jobArgs));
  }

  static Stream<Arguments> badInvocations() {
    return Stream.of(
        Arguments.of("local.sh", List.of("--cores", "0"), "--cores must be a positive integer, got '0'"),
        Arguments.of("local.sh", List.of("--jar", "/no/such.jar"), "application jar not found: /no/such.jar"),
        Arguments.of("local.sh", List.of("--defaults", "/no/such.conf"), "Spark defaults file not found: /no/such.conf"),
        Arguments.of("standalone.sh", List.of(), "no Master given"),
        Arguments.of("standalone.sh", List.of("--master", "yarn"), "--master must look like spark://HOST:PORT, got 'yarn'"),
        Arguments.of("standalone.sh", List.of("--master", "spark://h:1", "--executors"), "option --executors needs a value"),
        Arguments.of("yarn.sh", List.of("--deploy-mode", "remote"), "--deploy-mode must be client or cluster, got 'remote'"),
        Arguments.of("k8s.sh", List.of("--master", "k8s://https://h:1"), "no container image given"),
        Arguments.of("k8s.sh", List.of("--conf", "novalue"), "option --conf expects key=value, got 'novalue'"));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("badInvocations")
  void badInvocationFailsWithOneLineNamingTheProblem(String script, List<String> args, String message,
      @TempDir Path tmp) throws Exception {
    Path jar = Files.createFile(tmp.resolve("app.jar"));
    List<String> all = new ArrayList<>();
    if (!args.contains("--jar")) {
      all.addAll(List.of("--jar", jar.toString()));
    }
    all.addAll(args);
    Map<String, String> env = Map.of("HADOOP_CONF_DIR", tmp.toString());
    Result result = run(script, all, fakeSparkSubmit(tmp), tmp, env);
    assertEquals(2, result.exit, result.toString());
    assertEquals(1, result.stderr.lines().count(), result.toString());
    assertTrue(result.stderr.contains(message), result.stderr);
    assertFalse(Files.exists(tmp.resolve("argv")), "spark-submit must not run");
  }

  /** The network lab's scripts check a Spark setting before they need root or create anything. */
  @ParameterizedTest
  @ValueSource(strings = {"netlab.sh", "netlab-partitions.sh"})
  void aLabSettingWithoutAValueFailsWithOneLine(String script, @TempDir Path tmp) throws Exception {
    Result result = run(script, List.of("--conf", "spark.locality.wait.process", "--", "train"), "/usr/bin:/bin", tmp);
    assertEquals(2, result.exit, result.toString());
    assertEquals(1, result.stderr.lines().count(), result.toString());
    assertTrue(result.stderr.contains("option --conf expects key=value, got 'spark.locality.wait.process'"),
        result.stderr);
  }

  /** A logger for --log-info is checked before the lab needs root: it goes into a log configuration file. */
  @Test
  void aLabLoggerThatIsNoNameFailsWithOneLine(@TempDir Path tmp) throws Exception {
    Result result = run("netlab.sh", List.of("--log-info", "org.apache.spark x=1", "--", "train"), "/usr/bin:/bin",
        tmp);
    assertEquals(2, result.exit, result.toString());
    assertEquals(1, result.stderr.lines().count(), result.toString());
    assertTrue(result.stderr.contains("option --log-info expects a logger name such as "
        + "org.apache.spark.scheduler.TaskSetManager, got 'org.apache.spark x=1'"), result.stderr);
  }

  @Test
  void sparkHomeIsUsedWhenSparkSubmitIsNotOnPath(@TempDir Path tmp) throws Exception {
    Path home = tmp.resolve("spark");
    Path bin = fakeSparkSubmitIn(home.resolve("bin"), tmp);
    Path jar = Files.createFile(tmp.resolve("app.jar"));
    Result result = run("local.sh", List.of("--jar", jar.toString(), "--", "--help"), "/usr/bin:/bin", tmp,
        Map.of("SPARK_HOME", home.toString()));
    assertEquals(0, result.exit, result.toString());
    List<String> argv = recordedArgv(tmp);
    assertEquals("--help", argv.get(argv.size() - 1));
    assertTrue(Files.isExecutable(bin));
  }

  // ---------------------------------------------------------------------------------------------------------

  record Result(int exit, String stdout, String stderr) {
    @Override
    public String toString() {
      return "exit " + exit + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
    }
  }

  static Result run(String script, List<String> args, String path, Path tmp) throws Exception {
    return run(script, args, path, tmp, Map.of());
  }

  /** Runs {@code /bin/bash submit/<script> args} with exactly PATH={@code path} and {@code env}. */
  static Result run(String script, List<String> args, String path, Path tmp, Map<String, String> env)
      throws Exception {
    List<String> command = new ArrayList<>(List.of("/bin/bash", SUBMIT.resolve(script).toString()));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectOutput(tmp.resolve("stdout").toFile())
        .redirectError(tmp.resolve("stderr").toFile());
    builder.environment().clear();
    builder.environment().put("PATH", path);
    builder.environment().putAll(env);
    Process process = builder.start();
    assertTrue(process.waitFor(30, TimeUnit.SECONDS), script + " hung");
    return new Result(process.exitValue(), Files.readString(tmp.resolve("stdout")),
        Files.readString(tmp.resolve("stderr")));
  }

  /** A spark-submit that writes its arguments, NUL-separated, to tmp/argv; returns a PATH holding it. */
  static String fakeSparkSubmit(Path tmp) throws IOException {
    return fakeSparkSubmitIn(tmp.resolve("bin"), tmp).getParent() + ":/usr/bin:/bin";
  }

  static Path fakeSparkSubmitIn(Path bin, Path tmp) throws IOException {
    return fakeSparkSubmitIn(bin, tmp, SPARK_VERSION, SCALA_VERSION);
  }

  /** This test's Spark and Scala, which the fake spark-submit reports by default. */
  static final String SPARK_VERSION = org.apache.spark.package$.MODULE$.SPARK_VERSION();
  static final String SCALA_VERSION = scala.util.Properties.versionNumberString();

  /**
   * A spark-submit of Spark {@code spark} with Scala {@code scala}: {@code --version} prints Spark's banner (on
   * stderr, as Spark does), anything else is recorded in tmp/argv.
   */
  static Path fakeSparkSubmitIn(Path bin, Path tmp, String spark, String scala) throws IOException {
    Files.createDirectories(bin);
    Path fake = bin.resolve("spark-submit");
    // The properties file is removed once spark-submit ends: copied, with its and its directory's modes.
    Files.writeString(fake, "#!/bin/bash\n"
        + "if [[ \"$1\" == --version ]]; then\n"
        + "  printf '%s\\n' 'Welcome to' '   /___/ .__/\\_,_/_/ /_/\\_\\   version " + spark + "' '      /_/' ''"
        + " 'Using Scala version " + scala + ", OpenJDK 64-Bit Server VM, 17.0.15' 'Branch HEAD' >&2\n"
        + "  exit 0\n"
        + "fi\n"
        + "printf '%s\\0' \"$@\" > '" + tmp.resolve("argv") + "'\n"
        + "for ((i = 1; i < $#; i++)); do\n"
        + "  [[ \"${!i}\" == --properties-file ]] || continue\n"
        + "  j=$((i + 1)); cp -- \"${!j}\" '" + tmp.resolve(PROPERTIES) + "'\n"
        + "  stat -c %a -- \"${!j}\" \"$(dirname -- \"${!j}\")\" > '" + tmp.resolve(PROPERTIES + ".modes") + "'\n"
        + "  printf '%s' \"${!j}\" > '" + tmp.resolve(PROPERTIES + ".path") + "'\n"
        + "done\n");
    Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
    return fake;
  }

  /** The copy of the properties file a fake spark-submit was given (see {@link #fakeSparkSubmitIn}). */
  static final String PROPERTIES = "properties-file";

  static List<String> recordedArgv(Path tmp) throws IOException {
    String raw = new String(Files.readAllBytes(tmp.resolve("argv")), StandardCharsets.UTF_8);
    List<String> argv = new ArrayList<>(Arrays.asList(raw.split("\0", -1)));
    argv.remove(argv.size() - 1);   // after the last NUL
    return argv;
  }

  static String valueAfter(List<String> argv, String option) {
    int at = argv.indexOf(option);
    assertTrue(at >= 0 && at + 1 < argv.size(), option + " missing from " + argv);
    return argv.get(at + 1);
  }

  /** --conf k=v pairs in order; a later one replaces an earlier one, as in spark-submit. */
  static Map<String, String> effectiveConf(List<String> argv) {
    Map<String, String> conf = new LinkedHashMap<>();
    for (int i = 0; i < argv.size() - 1; i++) {
      if (argv.get(i).equals("--conf")) {
        String pair = argv.get(i + 1);
        int eq = pair.indexOf('=');
        conf.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
    }
    return conf;
  }

  static String option(List<String> options, String prefix) {
    return options.stream().filter(o -> o.startsWith(prefix)).findFirst()
        .map(o -> o.substring(prefix.length()))
        .orElseThrow(() -> new AssertionError("no " + prefix + " in " + options));
  }

  /** "512m", "4g", "6500m" in bytes, JVM-style suffixes. */
  static long bytes(String size) {
    char unit = Character.toLowerCase(size.charAt(size.length() - 1));
    long number = Long.parseLong(size.substring(0, size.length() - (Character.isDigit(unit) ? 0 : 1)));
    return switch (unit) {
      case 'k' -> number << 10;
      case 'm' -> number << 20;
      case 'g' -> number << 30;
      default -> number;
    };
  }
}
