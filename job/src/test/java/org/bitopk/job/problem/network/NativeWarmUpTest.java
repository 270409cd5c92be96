package org.bitopk.job.problem.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.api.plugin.PluginContext;
import org.junit.jupiter.api.Test;

/** An executor's plugin starts loading ND4J on a thread of its own; the driver's, in local mode, does not. */
class NativeWarmUpTest {
  private static PluginContext context(String executorId) {
    return (PluginContext) java.lang.reflect.Proxy.newProxyInstance(PluginContext.class.getClassLoader(),
        new Class<?>[] {PluginContext.class}, (proxy, method, args) -> {
          if (method.getName().equals("executorID")) {
            return executorId;
          }
          throw new UnsupportedOperationException(method.getName());
        });
  }

  @Test
  void anExecutorLoadsNd4jAheadOfItsFirstTask() throws Exception {
    NativeWarmUp plugin = new NativeWarmUp();
    assertEquals(null, plugin.driverPlugin(), "no driver-side half");
    plugin.executorPlugin().init(context("driver"), Map.of());
    assertTrue(NativeWarmUp.loading().isEmpty(), "local mode: the driver loads ND4J as it builds the model");

    plugin.executorPlugin().init(context("3"), Map.of());
    assertTrue(NativeWarmUp.loading().isPresent(), "an executor starts the loading");
    // throws if ND4J did not compute its product
    String loadedOn = NativeWarmUp.loading().get().get(60, TimeUnit.SECONDS);
    assertEquals("bitopk-nd4j-warm-up", loadedOn, "on a thread of its own, not the plugin's caller's");
  }
}
