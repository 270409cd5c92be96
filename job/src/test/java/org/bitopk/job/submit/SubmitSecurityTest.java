package org.bitopk.job.submit;

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
      Map<String, String> conf = effectiveConf(recordedArgv(tmp));
      assertEquals(Files.readAllLines(secretFile).get(0), conf.get("spark.authenticate.secret"),
          "the file's first line, which wins over $" + SECRET_VARIABLE);
    } else {
      assertRefused(result, tmp, "secret file " + secretFile + " has mode ");
      assertTrue(result.stderr().contains("chmod 600"), result.stderr());
    }
  }

  static Stream<Arguments> refusals() {
    return Stream.of(
        Arguments.of(List.of(), "", "no shared secret for the standalone cluster: pass --secret-file FILE or set "
            + SECRET_VARIABLE),
        Arguments.of(List.of(), "short", "the shared secret from $" + SECRET_VARIABLE + " has 5 characters"),
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
    assertTrue(result.stdout().contains("spark.authenticate.secret=\\<hidden\\>"), result.stdout());
    assertTrue(result.stdout().contains("spark.authenticate=true"), result.stdout());
    assertFalse(Files.exists(tmp.resolve("argv")), "spark-submit must not run");
  }

  // ---------------------------------------------------------------------------------------------------------

  private static Map<String, String> environment(Path tmp, String secret) {
    return secret.isEmpty() ? Map.of("HADOOP_CONF_DIR", tmp.toString())
        : Map.of("HADOOP_CONF_DIR", tmp.toString(), SECRET_VARIABLE, secret);
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
    return effectiveConf(recordedArgv(tmp));
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
