package org.bitopk.lab.network;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.spark.network.TransportContext;
import org.apache.spark.network.buffer.ManagedBuffer;
import org.apache.spark.network.client.ChunkReceivedCallback;
import org.apache.spark.network.client.TransportClient;
import org.apache.spark.network.client.TransportClientBootstrap;
import org.apache.spark.network.client.TransportClientFactory;
import org.apache.spark.network.crypto.AuthClientBootstrap;
import org.apache.spark.network.sasl.SecretKeyHolder;
import org.apache.spark.network.server.NoOpRpcHandler;
import org.apache.spark.network.shuffle.protocol.BlockTransferMessage;
import org.apache.spark.network.shuffle.protocol.OpenBlocks;
import org.apache.spark.network.shuffle.protocol.StreamHandle;
import org.apache.spark.network.util.MapConfigProvider;
import org.apache.spark.network.util.TransportConf;

/**
 * A host that is not part of a cluster asks a driver's block manager for broadcast blocks with Spark's own
 * block-transfer protocol ({@code OpenBlocks}, then the chunk), as an executor would: without any secret, or
 * with a wrong one. Against a driver without {@code spark.authenticate} it gets the blocks' bytes (the model
 * update of that round); against one with it every attempt must be refused.
 *
 * <p>{@code RogueBlockFetch HOST PORT FIRST_ID LAST_ID [WRONG_SECRET]} tries {@code broadcast_<id>_piece0} for
 * every id in the range (the driver keeps only its live broadcasts) and prints one JSON line: how many blocks
 * it fetched, their bytes, and the first refusal's message.
 */
public final class RogueBlockFetch {

  private static final long TIMEOUT_MS = 10_000;

  private RogueBlockFetch() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 4 || args.length > 5) {
      System.err.println("bitopk: usage: RogueBlockFetch HOST PORT FIRST_ID LAST_ID [WRONG_SECRET]");
      System.exit(2);
    }
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    int first = Integer.parseInt(args[2]);
    int last = Integer.parseInt(args[3]);
    String secret = args.length == 5 ? args[4] : null;
    System.out.println(new ObjectMapper().writeValueAsString(attempt(host, port, first, last, secret)));
  }

  static ObjectNode attempt(String host, int port, int first, int last, String wrongSecret) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("spark.shuffle.io.connectionTimeout", "10s");
    if (wrongSecret != null) {
      settings.put("spark.authenticate", "true");
      settings.put("spark.network.crypto.enabled", "true");
    }
    TransportConf conf = new TransportConf("shuffle", new MapConfigProvider(settings));
    List<TransportClientBootstrap> bootstraps = new ArrayList<>();
    if (wrongSecret != null) {
      bootstraps.add(new AuthClientBootstrap(conf, "rogue", new FixedSecret(wrongSecret)));
    }
    int fetched = 0;
    long bytes = 0;
    String firstRefusal = null;
    String fetchedIds = "";
    try (TransportContext context = new TransportContext(conf, new NoOpRpcHandler());
         TransportClientFactory factory = context.createClientFactory(bootstraps)) {
      for (int id = first; id <= last; id++) {
        String block = "broadcast_" + id + "_piece0";
        try {
          long size = fetch(factory, host, port, block);
          fetched++;
          bytes += size;
          fetchedIds += (fetchedIds.isEmpty() ? "" : ",") + id;
        } catch (Exception refused) {
          String message = rootMessage(refused);
          if (firstRefusal == null) {
            firstRefusal = message;
          }
        }
      }
    }
    ObjectNode result = new ObjectMapper().createObjectNode();
    result.put("attempt", wrongSecret == null ? "fetch-broadcast-without-secret" : "fetch-broadcast-wrong-secret");
    result.put("target", host + ":" + port);
    result.put("tried", last - first + 1);
    result.put("fetched", fetched);
    result.put("fetched_ids", fetchedIds);
    result.put("bytes", bytes);
    result.put("first_refusal", firstRefusal);
    return result;
  }

  /** Opens one block on the driver (executor id "driver") and reads its first chunk; returns its size. */
  private static long fetch(TransportClientFactory factory, String host, int port, String block) throws Exception {
    TransportClient client = factory.createClient(host, port);
    ByteBuffer reply = client.sendRpcSync(new OpenBlocks("rogue", "driver", new String[] {block}).toByteBuffer(),
        TIMEOUT_MS);
    StreamHandle handle = (StreamHandle) BlockTransferMessage.Decoder.fromByteBuffer(reply);
    CompletableFuture<Long> size = new CompletableFuture<>();
    client.fetchChunk(handle.streamId, 0, new ChunkReceivedCallback() {
      @Override
      public void onSuccess(int chunkIndex, ManagedBuffer buffer) {
        size.complete(buffer.size());
      }

      @Override
      public void onFailure(int chunkIndex, Throwable e) {
        size.completeExceptionally(e);
      }
    });
    return size.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getClass().getSimpleName() + ": " + root.getMessage();
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /** The secret a rogue guesses: not the cluster's. */
  private record FixedSecret(String secret) implements SecretKeyHolder {
    @Override
    public String getSaslUser(String appId) {
      return "sparkSaslUser";
    }

    @Override
    public String getSecretKey(String appId) {
      return secret;
    }
  }
}
