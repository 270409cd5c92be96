package org.bitopk.job.submit;

import static org.bitopk.job.submit.SubmitScriptsTest.PROPERTIES;
import static org.bitopk.job.submit.SubmitScriptsTest.SECRET;
import static org.bitopk.job.submit.SubmitScriptsTest.SECRET_VARIABLE;
import static org.bitopk.job.submit.SubmitScriptsTest.effectiveConf;
import static org.bitopk.job.submit.SubmitScriptsTest.fakeSparkSubmit;
import static org.bitopk.job.submit.SubmitScriptsTest.recordedArgv;
import static org.bitopk.job.submit.SubmitScriptsTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.bitopk.job.submit.SubmitScriptsTest.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Spark's security in the cluster scripts, read from the arguments a fake spark-submit receives: on by default
 * (authentication, RPC encryption, encrypted local blocks), the standalone cluster's shared secret taken only
 * from a file its owner alone may read or from the environment, and every refusal one line with exit status 2
 * before spark-submit runs.
 */
class SubmitSecurityTest {

  static final Map<String, String> SECURITY_ON = Map.of(
      "spark.authenticate", "true",
      "spark.network.crypto.enabled", "true",
      "spark.io.encryption.enabled", "true");

  /** Per cluster script: the options it needs to reach spark-submit. */
  static Stream<Arguments> clusterScripts() {
    return Stream.of(
        Arguments.of("standalone.sh", List.of("--master", "spark://198.18.0.1:7077")),
        Arguments.of("yarn.sh", List.of()),
        Arguments.of("k8s.sh", List.of("--master", "k8s://https://kube:6443", "--image", "reg/bitopk:1")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("clusterScripts")
  void clusterScriptsAuthenticateAndEncryptByDefault(String script, List<String> options, @TempDir Path tmp)
      throws Exception {
    Map<String, String> conf = submittedConf(script, options, environment(tmp, SECRET), tmp);
    SECURITY_ON.forEach((key, value) -> assertEquals(value, conf.get(key), script + " " + key));
    if (script.equals("standalone.sh")) {
      assertEquals(SECRET, conf.get("spark.authenticate.secret"), "the cluster's shared secret");
      assertTrue(recordedArgv(tmp).stream().noneMatch(a -> a.contains(SECRET)), "the secret is on no command line");
      assertEquals(List.of("600", "700"), Files.readAllLines(tmp.resolve(PROPERTIES + ".modes")),
          "the properties file and its directory are their owner's alone");
      Path written = Path.of(Files.readString(tmp.resolve(PROPERTIES + ".path")));
      assertTrue(written.startsWith(tmp.resolve("tmpdir")), written + " is in $TMPDIR");
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (Files.exists(written.getParent()) && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertFalse(Files.exists(written.getParent()), "removed once spark-submit has ended");
    } else {
      assertFalse(conf.containsKey("spark.authenticate.secret"), "the cluster manager makes one per application");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("clusterScripts")
  void insecureLeavesSecurityToTheClustersOwnSettings(String script, List<String> options, @TempDir Path tmp)
      throws Exception {
    List<String> insecure = new ArrayList<>(options);
    insecure.add("--insecure");
    Map<String, String> env = new HashMap<>(environment(tmp, SECRET));
    env.remove(SECRET_VARIABLE);   // standalone.sh needs no secret then
    Map<String, String> conf = submittedConf(script, insecure, env, tmp);
    assertEquals(Set.of(), securityKeys(conf), script);
  }

  @Test
  void localRunsInOneJvmAndAddsNoSecurity(@TempDir Path tmp) throws Exception {
    Map<String, String> conf = submittedConf("local.sh", List.of(), environment(tmp, SECRET), tmp);
    assertEquals(Set.of(), securityKeys(conf));
  }

  /** Every mode a secret file may have in practice; refused exactly when group or others get any access. */
  @ParameterizedTest(name = "mode {0}")
  @ValueSource(strings = {"rw-------", "r--------", "rwx------", "rw-r-----", "rw----r--", "rw-r--r--",
      "rw-rw----", "rw----rw-", "rw--w----", "rw------x"})
  void secretFileIsUsedOnlyIfItsOwnerAloneHasAccess(String mode, @TempDir Path tmp) throws Exception {
    Set<PosixFilePermission> permissions = PosixFilePermissions.fromString(mode);
    Path secretFile = tmp.resolve("cluster secret");
    Files.writeString(secretFile, "file-secret-0123456789abcdef\nsecond line is not part of it\n");
    Files.setPosixFilePermissions(secretFile, permissions);
    boolean private_ = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
        PosixFilePermission.OWNER_EXECUTE).containsAll(permissions);

    Result result = submit("standalone.sh", List.of("--master", "spark://198.18.0.1:7077", "--secret-file",
        secretFile.toString()), environment(tmp, SECRET), tmp);
    if (private_) {
      assertEquals(0, result.exit(), result.toString());
      Map<String, String> conf = submittedConf(tmp);
      assertEquals(Files.readAllLines(secretFile).get(0), conf.get("spark.authenticate.secret"),
          "the file's first line, which wins over $" + SECRET_VARIABLE);
    } else {
      assertRefused(result, tmp, "secret file " + secretFile + " has mode ");
      assertTrue(result.stderr().contains("chmod 600"), result.stderr());
    }
  }

  /** A link is judged by the file spark-submit reads through it: the link's own mode (777) says nothing. */
  @Test
  void aLinkedSecretFileIsJudgedByItsTarget(@TempDir Path tmp) throws Exception {
    Path target = Files.writeString(tmp.resolve("secret"), "linked-secret-0123456789abcdef\n");
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
    Path link = Files.createSymbolicLink(tmp.resolve("secret-link"), target);
    List<String> options = List.of("--master", "spark://198.18.0.1:7077", "--secret-file", link.toString());
    Result result = submit("standalone.sh", options, environment(tmp, SECRET), tmp);
    assertEquals(0, result.exit(), result.toString());
    assertEquals("linked-secret-0123456789abcdef", submittedConf(tmp).get("spark.authenticate.secret"));

    Files.delete(tmp.resolve("argv"));
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r--r--"));
    assertRefused(submit("standalone.sh", options, environment(tmp, SECRET), tmp), tmp,
        "secret file " + link + " has mode 644: group and others must have no access");
  }

  /** A file written on Windows ends its line with CR LF: the CR is a line end, not part of the secret. */
  @Test
  void aWindowsLineEndIsNotPartOfTheSecret(@TempDir Path tmp) throws Exception {
    Path secretFile = Files.writeString(tmp.resolve("secret"), "crlf-secret-0123456789abcdef\r\nnext\r\n");
    Files.setPosixFilePermissions(secretFile, PosixFilePermissions.fromString("rw-------"));
    Result result = submit("standalone.sh", List.of("--master", "spark://198.18.0.1:7077", "--secret-file",
        secretFile.toString()), environment(tmp, SECRET), tmp);
    assertEquals(0, result.exit(), result.toString());
    assertEquals("crlf-secret-0123456789abcdef", submittedConf(tmp).get("spark.authenticate.secret"));
  }

  /** spark-submit reads no conf/spark-defaults.conf once given a properties file: the script copies it in. */
  @Test
  void theInstallationsDefaultsStillApply(@TempDir Path tmp) throws Exception {
    Path confDir = Files.createDirectories(tmp.resolve("conf"));
    Files.writeString(confDir.resolve("spark-defaults.conf"), "spark.eventLog.enabled true\n"
        + "spark.authenticate.secret the-daemons-own-secret-ignored\n");
    Map<String, String> env = new HashMap<>(environment(tmp, SECRET));
    env.put("SPARK_CONF_DIR", confDir.toString());
    Result result = submit("standalone.sh", List.of("--master", "spark://198.18.0.1:7077"), env, tmp);
    assertEquals(0, result.exit(), result.toString());
    Map<String, String> conf = submittedConf(tmp);
    assertEquals("true", conf.get("spark.eventLog.enabled"));
    assertEquals(SECRET, conf.get("spark.authenticate.secret"), "the script's secret comes last and wins");
  }

  static Stream<Arguments> refusals() {
    return Stream.of(
        Arguments.of(List.of(), "", "no shared secret for the standalone cluster: pass --secret-file FILE or set "
            + SECRET_VARIABLE),
        Arguments.of(List.of(), "short", "the shared secret from $" + SECRET_VARIABLE + " has 5 characters"),
        Arguments.of(List.of(), "0123456789 abcdef", "the shared secret from $" + SECRET_VARIABLE
            + " contains a blank or a control character"),
        Arguments.of(List.of("--secret-file", "/no/such/secret"), "", "secret file not found or not readable: /no/such/secret"),
        Arguments.of(List.of("--insecure", "--secret-file", "/no/such/secret"), "", "--insecure and --secret-file contradict"),
        Arguments.of(List.of("--secret-file"), "", "option --secret-file needs a value"));
  }

  @ParameterizedTest(name = "{0} [{1}]")
  @MethodSource("refusals")
  void standaloneRefusesWithOneLine(List<String> options, String environmentSecret, String message,
      @TempDir Path tmp) throws Exception {
    List<String> all = new ArrayList<>(List.of("--master", "spark://198.18.0.1:7077"));
    all.addAll(options);
    assertRefused(submit("standalone.sh", all, environment(tmp, environmentSecret), tmp), tmp, message);
  }

  @Test
  void emptyOrShortSecretFilesAreRefused(@TempDir Path tmp) throws Exception {
    Path secretFile = Files.createFile(tmp.resolve("secret"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    List<String> options = List.of("--master", "spark://198.18.0.1:7077", "--secret-file", secretFile.toString());
    assertRefused(submit("standalone.sh", options, environment(tmp, SECRET), tmp), tmp,
        "secret file " + secretFile + " is empty");
    Files.writeString(secretFile, "fifteen-chars-x\n");
    assertRefused(submit("standalone.sh", options, environment(tmp, SECRET), tmp), tmp,
        "the shared secret from " + secretFile + " has 15 characters: use at least 16");
  }

  @Test
  void dryRunPrintsTheCommandWithoutTheSecret(@TempDir Path tmp) throws Exception {
    Result result = submit("standalone.sh", List.of("--master", "spark://198.18.0.1:7077", "--dry-run"),
        environment(tmp, SECRET), tmp);
    assertEquals(0, result.exit(), result.toString());
    assertFalse(result.stdout().contains(SECRET), result.stdout());
    assertTrue(result.stdout().contains("--properties-file \\<private\\ file:\\ spark.authenticate.secret\\>"),
        result.stdout());
    assertTrue(result.stdout().contains("spark.authenticate=true"), result.stdout());
    assertFalse(Files.exists(tmp.resolve("argv")), "spark-submit must not run");
  }

  // ---------------------------------------------------------------------------------------------------------

  private static Map<String, String> environment(Path tmp, String secret) throws java.io.IOException {
    String tmpdir = Files.createDirectories(tmp.resolve("tmpdir")).toString();
    return secret.isEmpty() ? Map.of("HADOOP_CONF_DIR", tmp.toString(), "TMPDIR", tmpdir)
        : Map.of("HADOOP_CONF_DIR", tmp.toString(), "TMPDIR", tmpdir, SECRET_VARIABLE, secret);
  }

  /** What spark-submit ends up with: the properties file's settings, then --conf (which wins, as in Spark). */
  static Map<String, String> submittedConf(Path tmp) throws java.io.IOException {
    Map<String, String> conf = new java.util.LinkedHashMap<>();
    Path properties = tmp.resolve(PROPERTIES);
    if (Files.exists(properties)) {
      java.util.Properties file = new java.util.Properties();
      try (java.io.Reader in = Files.newBufferedReader(properties)) {
        file.load(in);
      }
      file.stringPropertyNames().forEach(key -> conf.put(key, file.getProperty(key).trim()));
    }
    conf.putAll(effectiveConf(recordedArgv(tmp)));
    return conf;
  }

  private static Result submit(String script, List<String> options, Map<String, String> env, Path tmp)
      throws Exception {
    Path jar = tmp.resolve("app.jar");
    if (!Files.exists(jar)) {
      Files.createFile(jar);
    }
    List<String> args = new ArrayList<>(List.of("--jar", jar.toString()));
    args.addAll(options);
    args.addAll(List.of("--", "--workers", "2"));
    return run(script, args, fakeSparkSubmit(tmp), tmp, env);
  }

  private static Map<String, String> submittedConf(String script, List<String> options, Map<String, String> env,
      Path tmp) throws Exception {
    Result result = submit(script, options, env, tmp);
    assertEquals(0, result.exit(), result.toString());
    return submittedConf(tmp);
  }

  private static Set<String> securityKeys(Map<String, String> conf) {
    Set<String> keys = new java.util.TreeSet<>(conf.keySet());
    keys.removeIf(key -> !key.startsWith("spark.authenticate") && !key.startsWith("spark.network.crypto")
        && !key.startsWith("spark.io.encryption"));
    return keys;
  }

  private static void assertRefused(Result result, Path tmp, String message) {
    assertEquals(2, result.exit(), result.toString());
    assertEquals(1, result.stderr().lines().count(), result.toString());
    assertTrue(result.stderr().startsWith("standalone.sh: error: " + message), result.stderr());
    assertFalse(Files.exists(tmp.resolve("argv")), "spark-submit must not run");
  }
}
