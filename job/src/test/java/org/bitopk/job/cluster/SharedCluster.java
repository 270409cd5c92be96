package org.bitopk.job.cluster;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * JUnit extension handing one {@link StandaloneCluster} (2 Workers, 1 core each) to every test class that asks
 * for it, started once per test JVM and stopped when JUnit finishes: starting a cluster costs tens of seconds.
 * Tests receive it as a {@code StandaloneCluster} parameter.
 */
public final class SharedCluster implements ParameterResolver {

  public static final int WORKERS = 2;

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == StandaloneCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    ExtensionContext.Store store = context.getRoot().getStore(ExtensionContext.Namespace.create(SharedCluster.class));
    return store.getOrComputeIfAbsent("cluster", key -> new Resource(start()), Resource.class).cluster();
  }

  private static StandaloneCluster start() {
    try {
      Path root = Files.createTempDirectory("bitopk-standalone-");
      return StandaloneCluster.start(root, WORKERS, 1, "3g");
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the standalone cluster", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting the standalone cluster", e);
    }
  }

  private record Resource(StandaloneCluster cluster) implements ExtensionContext.Store.CloseableResource {
    @Override
    public void close() {
      cluster.close();
      cluster.deleteFiles();
    }
  }
}
