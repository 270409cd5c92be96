package org.bitopk.job.engine;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.api.plugin.SparkPlugin;

/**
 * Hands an executor's worker states to the driver as the executor stops, so that a decommissioned executor loses
 * none. Spark stops a decommissioned executor once its running tasks have ended (with storage decommission on,
 * once its blocks have moved too); stopping, it shuts its plugins down before its RPC environment, and this
 * plugin then sends every worker state it holds (residual, momentum, compressor state, and the round and task
 * attempt that produced it) to its driver-side half, which keeps them in {@link #received} until the driver loop
 * installs them on the executors that take the workers over ({@link ElasticGroups}). An executor that crashes
 * sends nothing: its workers' residuals are lost, as before.
 *
 * <p>The message is a byte array of the plugin's own format: the driver's RPC threads deserialize it with Spark's
 * class loader, which may not see the application's classes.
 */
public final class StateHandover implements SparkPlugin {
  /** Spark's setting that lists the plugins; the job adds this class to it. */
  public static final String SETTING = "spark.plugins";
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(StateHandover.class);
  private static final int FORMAT = 0x6274_6b01;
  /** Per run, per worker, the last state handed over. */
  private static final Map<String, Map<Integer, Handed>> RECEIVED = new ConcurrentHashMap<>();

  /** A worker's state as its executor handed it over: after round {@code round}, taken by attempt {@code token}. */
  record Handed(int round, long token, WorkerMemory memory) {}

  @Override
  public DriverPlugin driverPlugin() {
    return new DriverPlugin() {
      @Override
      public Object receive(Object message) {
        if (message instanceof byte[] bytes) {
          accept(bytes);
        }
        return Boolean.TRUE;
      }
    };
  }

  @Override
  public ExecutorPlugin executorPlugin() {
    return new ExecutorPlugin() {
      private PluginContext context;

      @Override
      public void init(PluginContext pluginContext, Map<String, String> extraConf) {
        this.context = pluginContext;
      }

      @Override
      public void shutdown() {
        if (context == null || "driver".equals(context.executorID())) {
          return;   // local mode: the workers' states die with the driver
        }
        ExecutorRegistry.forEachRun((runId, run) -> {
          encode(runId, run).ifPresent(message -> {
            try {
              context.ask(message);
              LOG.info("handed the worker states of run {} over to the driver ({} bytes)", runId, message.length);
            } catch (Exception e) {
              LOG.warn("could not hand the worker states of run {} over to the driver: {}", runId, e.toString());
            }
          });
        });
      }
    };
  }

  /** The states handed over for the run so far, by worker. */
  static Map<Integer, Handed> received(String runId) {
    return RECEIVED.getOrDefault(runId, Map.of());
  }

  static void forget(String runId) {
    RECEIVED.remove(runId);
  }

  /** The run's worker states on this executor; empty when it holds none. */
  static Optional<byte[]> encode(String runId, RunState run) {
    List<Integer> workers = run.workerIds();
    if (workers.isEmpty()) {
      return Optional.empty();
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(FORMAT);
      out.writeUTF(runId);
      out.writeInt(workers.size());
      for (int worker : workers) {
        synchronized (run.lock(worker)) {
          WorkerState state = run.worker(worker);
          out.writeInt(worker);
          out.writeInt(state.round());
          out.writeLong(state.token());
          writeFloats(out, state.memory.memory());
          writeFloats(out, state.velocity());
          byte[] compressor = state.compressor.saveState();
          out.writeInt(compressor == null ? -1 : compressor.length);
          if (compressor != null) {
            out.write(compressor);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Optional.of(bytes.toByteArray());
  }

  /** Keeps the states of a message from an executor; a message of another format is ignored. */
  static void accept(byte[] message) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(message))) {
      if (in.readInt() != FORMAT) {
        return;
      }
      String runId = in.readUTF();
      Map<Integer, Handed> run = RECEIVED.computeIfAbsent(runId, id -> new ConcurrentHashMap<>());
      for (int n = in.readInt(); n > 0; n--) {
        int worker = in.readInt();
        int round = in.readInt();
        long token = in.readLong();
        float[] residual = readFloats(in);
        float[] velocity = readFloats(in);
        int length = in.readInt();
        byte[] compressor = length < 0 ? null : in.readNBytes(length);
        run.put(worker, new Handed(round, token, new WorkerMemory(worker, residual, velocity, compressor)));
      }
    } catch (IOException e) {
      LOG.warn("ignored a worker state handover that cannot be read: {}", e.toString());
    }
  }

  private static void writeFloats(DataOutputStream out, float[] values) throws IOException {
    out.writeInt(values == null ? -1 : values.length);
    if (values != null) {
      java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(values.length * Float.BYTES);
      buffer.asFloatBuffer().put(values);
      out.write(buffer.array());
    }
  }

  private static float[] readFloats(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0) {
      return null;
    }
    float[] values = new float[length];
    java.nio.ByteBuffer.wrap(in.readNBytes(length * Float.BYTES)).asFloatBuffer().get(values);
    return values;
  }
}
