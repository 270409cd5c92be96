package org.bitopk.job.config;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bitopk.job.BadInputException;
import org.bitopk.job.RunFailedException;

/**
 * A Spark master URL, checked before Spark starts: its syntax (the forms Spark 3.5's SparkContext and
 * cluster managers accept), and for masters with a network address (standalone {@code spark://}, Kubernetes
 * {@code k8s://}) that the host resolves and the port accepts a connection within {@link #PROBE_TIMEOUT}.
 * Without this, Spark reports a malformed URL with a trace and an unreachable master only after its own
 * registration retries, as "Cannot call methods on a stopped SparkContext", naming neither.
 */
public final class MasterUrl {
  /** Bound on resolving the host, and separately on connecting to each address. */
  public static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);

  static final String EXPECTED = "expected local, local[N], local[*], local[N,F], local-cluster[N,C,M], "
      + "spark://HOST:PORT[,HOST:PORT...], yarn or k8s://[https://]HOST[:PORT]";

  private static final Pattern LOCAL_N = Pattern.compile("local\\[\\s*([0-9]+|\\*)\\s*]");
  private static final Pattern LOCAL_N_FAILURES = Pattern.compile("local\\[\\s*([0-9]+|\\*)\\s*,\\s*([0-9]+)\\s*]");
  private static final Pattern LOCAL_CLUSTER =
      Pattern.compile("local-cluster\\[\\s*([0-9]+)\\s*,\\s*([0-9]+)\\s*,\\s*([0-9]+)\\s*]");

  /** One network endpoint to probe. */
  record Endpoint(String host, int port) {
    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  private MasterUrl() {}

  /**
   * Checks the syntax of {@code url}; returns the endpoints a probe should reach (none for local and YARN
   * masters: YARN's ResourceManager comes from the Hadoop configuration).
   *
   * @throws BadInputException naming the URL and the accepted forms
   */
  public static List<Endpoint> parse(String url) {
    String u = url.trim();
    if (u.equals("local") || u.equals("yarn")) {
      return List.of();
    }
    Matcher local = LOCAL_N.matcher(u);
    Matcher localFailures = LOCAL_N_FAILURES.matcher(u);
    if (local.matches() || localFailures.matches()) {
      String threads = local.matches() ? local.group(1) : localFailures.group(1);
      if (!threads.equals("*") && !(parsePositive(threads) > 0)) {
        throw bad(url, "a local master needs at least one thread");
      }
      return List.of();
    }
    Matcher cluster = LOCAL_CLUSTER.matcher(u);
    if (cluster.matches()) {
      if (parsePositive(cluster.group(1)) < 1 || parsePositive(cluster.group(2)) < 1
          || parsePositive(cluster.group(3)) < 1) {
        throw bad(url, "local-cluster[N,C,M] needs N workers, C cores and M MiB, each >= 1");
      }
      return List.of();
    }
    if (u.startsWith("spark://")) {
      List<Endpoint> endpoints = new ArrayList<>();
      for (String hostPort : u.substring("spark://".length()).split(",", -1)) {
        endpoints.add(endpoint(url, "spark://" + hostPort, -1));
      }
      return endpoints;
    }
    if (u.startsWith("k8s://")) {
      String api = u.substring("k8s://".length());
      if (!api.contains("://")) {
        api = "https://" + api;
      }
      return List.of(endpoint(url, api, api.startsWith("http://") ? 80 : 443));
    }
    throw bad(url, EXPECTED);
  }

  /**
   * Resolves and connects to the master's endpoints; one that answers is enough (standalone HA lists
   * several masters).
   *
   * @throws BadInputException when no host of the URL resolves (a misspelt name)
   * @throws RunFailedException when hosts resolve but none accepts a connection within the timeout
   */
  public static void probe(String url, List<Endpoint> endpoints, Duration timeout) {
    if (endpoints.isEmpty()) {
      return;
    }
    List<String> problems = new ArrayList<>();
    boolean anyResolved = false;
    for (Endpoint e : endpoints) {
      InetAddress address;
      try {
        address = resolve(e.host(), timeout);
      } catch (UnknownHostException unknown) {
        problems.add("unknown host " + e.host());
        continue;
      }
      anyResolved = true;
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(address, e.port()), (int) timeout.toMillis());
        return;
      } catch (SocketTimeoutException slow) {
        problems.add(e + " did not answer within " + timeout.toSeconds() + " s");
      } catch (ConnectException | NoRouteToHostException refused) {
        problems.add(e + " refused the connection (" + refused.getMessage() + ")");
      } catch (IOException other) {
        problems.add(e + ": " + other.getMessage());
      }
    }
    String message = "--master " + url + ": cannot reach the master: " + String.join("; ", problems);
    if (!anyResolved) {
      throw new BadInputException(message);
    }
    throw new RunFailedException(message + " (is the master running, and is this its address and port?)");
  }

  /** Name resolution with a bound: a resolver without network can otherwise hang for a long time. */
  private static InetAddress resolve(String host, Duration timeout) throws UnknownHostException {
    CompletableFuture<InetAddress> lookup = CompletableFuture.supplyAsync(() -> {
      try {
        return InetAddress.getByName(host);
      } catch (UnknownHostException e) {
        throw new java.util.concurrent.CompletionException(e);
      }
    });
    try {
      return lookup.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new UnknownHostException(host);
    } catch (TimeoutException e) {
      lookup.cancel(true);
      throw new UnknownHostException(host + " (no answer from the name resolver within " + timeout.toSeconds()
          + " s)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UnknownHostException(host + " (interrupted)");
    }
  }

  private static Endpoint endpoint(String url, String uriText, int defaultPort) {
    URI uri;
    try {
      uri = new URI(uriText);
    } catch (URISyntaxException e) {
      throw bad(url, EXPECTED);
    }
    String host = uri.getHost();
    int port = uri.getPort() > 0 ? uri.getPort() : defaultPort;
    boolean hasPath = uri.getRawPath() != null && !uri.getRawPath().isEmpty() && !uri.getRawPath().equals("/");
    if (host == null || port <= 0 || (defaultPort < 0 && (hasPath || uri.getRawQuery() != null))) {
      throw bad(url, defaultPort < 0 ? "a standalone master is spark://HOST:PORT (e.g. spark://head:7077)"
          : EXPECTED);
    }
    return new Endpoint(host, port);
  }

  private static int parsePositive(String digits) {
    try {
      return Integer.parseInt(digits);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static BadInputException bad(String url, String expected) {
    return new BadInputException("--master: '" + url + "' is not a Spark master URL: " + expected);
  }
}
