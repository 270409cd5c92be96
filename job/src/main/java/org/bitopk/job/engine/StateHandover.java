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
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.api.plugin.SparkPlugin;
import org.jspecify.annotations.Nullable;

/**
 * Hands an executor's worker states to the driver as the executor stops, so that a decommissioned executor loses
 * none. Spark stops a decommissioned executor once its running tasks have ended (with storage decommission on,
 * once its blocks have moved too); stopping, it shuts its plugins down before its RPC environment, and this
 * plugin then sends every worker state it holds (residual, momentum, compressor state, and the round and task
 * attempt that produced it) to its driver-side half, which keeps them in {@link #received} until the driver loop
 * installs them on the executors that take the workers over ({@link ElasticGroups}). An executor that crashes
 * sends nothing: its workers' residuals are lost, as before.
 *
 * <p>A decommission notice can also reach the driver after a round boundary has placed the groups and before the
 * round's tasks launch: Spark then launches no task on the leaving executor, and its groups' tasks run elsewhere
 * once it is gone, without the states it has handed over. Such a task asks the driver for its worker's state
 * ({@link #ask}) before it starts the worker afresh: the driver answers with the state handed over, when it is the
 * one the round expects (after round t − 1, by the attempt the driver used), so that nothing is lost then either.
 *
 * <p>The messages are byte arrays of the plugin's own format: the driver's RPC threads deserialize them with
 * Spark's class loader, which may not see the application's classes.
 */
public final class StateHandover implements SparkPlugin {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(StateHandover.class);
  private static final int FORMAT = 0x6274_6b01;
  /** A task's request for one worker's handed-over state. */
  private static final int ASK = 0x6274_6b02;
  /** This executor JVM's plugin context, for {@link #ask}; absent on the driver and in local mode. */
  private static final AtomicReference<Optional<PluginContext>> EXECUTOR_CONTEXT =
      new AtomicReference<>(Optional.empty());
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
          if (isRequest(bytes)) {
            return reply(bytes);
          }
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
        if (!"driver".equals(pluginContext.executorID())) {
          EXECUTOR_CONTEXT.set(Optional.of(pluginContext));
        }
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

  /**
   * On an executor, the state of {@code worker} of run {@code runId} that a departed executor handed over, if it is
   * the state after round {@code round} taken by attempt {@code token}; asked of the driver (in local mode, where
   * the driver is this JVM, looked up here). Empty when there is none, or the driver cannot be asked.
   */
  static Optional<WorkerMemory> ask(String runId, int worker, int round, long token) {
    Optional<PluginContext> context = EXECUTOR_CONTEXT.get();
    byte[] request = request(runId, worker, round, token);
    try {
      byte[] answer = context.isPresent() ? (byte[]) context.get().ask(request) : reply(request);
      return answer.length == 0 ? Optional.empty() : Optional.of(readMemory(
          new DataInputStream(new ByteArrayInputStream(answer)), worker));
    } catch (Exception e) {
      LOG.warn("could not ask the driver for worker {}'s handed-over state: {}", worker, e.toString());
      return Optional.empty();
    }
  }

  static byte[] request(String runId, int worker, int round, long token) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(ASK);
      out.writeUTF(runId);
      out.writeInt(worker);
      out.writeInt(round);
      out.writeLong(token);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static boolean isRequest(byte[] message) {
    return message.length >= Integer.BYTES && java.nio.ByteBuffer.wrap(message).getInt() == ASK;
  }

  /** The driver's answer to {@link #request}: the state's bytes when it is the one asked for, else none. */
  static byte[] reply(byte[] request) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(request))) {
      if (in.readInt() != ASK) {
        return new byte[0];
      }
      String runId = in.readUTF();
      int worker = in.readInt();
      int round = in.readInt();
      long token = in.readLong();
      Handed handed = received(runId).get(worker);
      if (handed == null || handed.round() != round || handed.token() != token) {
        return new byte[0];
      }
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        WorkerMemory memory = handed.memory();
        writeMemory(out, memory.residual(), memory.velocity(), memory.compressorState());
      }
      LOG.info("worker {} of run {}: its state after round {}, handed over by a departed executor, sent to the task "
          + "that runs it now", worker, runId, round);
      return bytes.toByteArray();
    } catch (IOException e) {
      LOG.warn("ignored a request for a worker state that cannot be read: {}", e.toString());
      return new byte[0];
    }
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
          writeMemory(out, state.memory.memory(), state.velocity(), state.compressor.saveState());
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
        run.put(worker, new Handed(round, token, readMemory(in, worker)));
      }
    } catch (IOException e) {
      LOG.warn("ignored a worker state handover that cannot be read: {}", e.toString());
    }
  }

  private static void writeMemory(DataOutputStream out, float[] residual, float @Nullable [] velocity,
      byte @Nullable [] compressor) throws IOException {
    writeFloats(out, residual);
    writeFloats(out, velocity);
    out.writeInt(compressor == null ? -1 : compressor.length);
    if (compressor != null) {
      out.write(compressor);
    }
  }

  private static WorkerMemory readMemory(DataInputStream in, int worker) throws IOException {
    float[] residual = readFloats(in);
    float[] velocity = readFloats(in);
    int length = in.readInt();
    byte[] compressor = length < 0 ? null : in.readNBytes(length);
    return new WorkerMemory(worker, residual, velocity, compressor);
  }

  private static void writeFloats(DataOutputStream out, float @Nullable [] values) throws IOException {
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
