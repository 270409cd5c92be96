package org.bitopk.job.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.bitopk.job.BadInputException;
import org.bitopk.job.RunFailedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Master URLs are checked before Spark starts: syntax as Spark accepts it, and that the master answers. */
class MasterUrlTest {

  @ParameterizedTest
  @ValueSource(strings = {"local", "local[4]", "local[*]", "local[2,3]", "local[*, 4]", "local-cluster[2,1,1024]",
      "spark://head:7077", "spark://a:7077,b:7078", "yarn", "k8s://https://kube:6443", "k8s://kube.local:443"})
  void sparksMasterFormsAreAccepted(String url) {
    MasterUrl.parse(url);
  }

  @ParameterizedTest
  @ValueSource(strings = {"spark://head", "spark:/head:7077", "spark://:7077", "spark://head:7077/x", "local[0]",
      "local[two]", "local-cluster[0,1,1024]", "mesos:/x", "yarn-client", "http://head:7077", "locale"})
  void anythingElseIsBadInputNamingTheUrl(String url) {
    BadInputException e = assertThrows(BadInputException.class, () -> MasterUrl.parse(url));
    assertTrue(e.getMessage().startsWith("--master: '" + url + "' is not a Spark master URL"), e.getMessage());
  }

  @Test
  void endpointsOfStandaloneAndKubernetesMasters() {
    assertEquals(List.of(new MasterUrl.Endpoint("a", 7077), new MasterUrl.Endpoint("b", 7078)),
        MasterUrl.parse("spark://a:7077,b:7078"));
    assertEquals(List.of(new MasterUrl.Endpoint("kube", 443)), MasterUrl.parse("k8s://kube"));
    assertEquals(List.of(), MasterUrl.parse("local[2]"));
  }

  @Test
  void aMasterThatAnswersPassesARefusedOneFailsAnUnknownHostIsBadInput() throws IOException {
    Duration timeout = Duration.ofSeconds(5);
    try (ServerSocket listening = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String url = "spark://127.0.0.1:" + listening.getLocalPort();
      MasterUrl.probe(url, MasterUrl.parse(url), timeout);
    }
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    String refused = "spark://127.0.0.1:" + closed;
    RunFailedException down = assertThrows(RunFailedException.class,
        () -> MasterUrl.probe(refused, MasterUrl.parse(refused), timeout));
    assertTrue(down.getMessage().startsWith("--master " + refused + ": cannot reach the master")
        && down.getMessage().contains("refused"), down.getMessage());

    // one of several masters answering is enough (standalone HA)
    try (ServerSocket listening = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String ha = "spark://127.0.0.1:" + closed + ",127.0.0.1:" + listening.getLocalPort();
      MasterUrl.probe(ha, MasterUrl.parse(ha), timeout);
    }

    String unknown = "spark://no-such-host.invalid:7077";
    BadInputException bad = assertThrows(BadInputException.class,
        () -> MasterUrl.probe(unknown, MasterUrl.parse(unknown), timeout));
    assertTrue(bad.getMessage().contains("unknown host no-such-host.invalid"), bad.getMessage());
  }
}
