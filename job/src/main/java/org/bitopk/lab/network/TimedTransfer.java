package org.bitopk.lab.network;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;

/**
 * The network lab's timed TCP transfer, which checks that a shaped link carries its rate: {@code receive ADDRESS
 * PORT FILE} accepts one connection, reads it to the end and writes {@code {"bytes", "seconds",
 * "mbit_per_second"}} to FILE, timing from the first byte to the end of the stream (connection set-up before the
 * first byte is not the link's rate). The lab sends with bash's {@code /dev/tcp}.
 */
public final class TimedTransfer {
  private static final int CHUNK = 64 * 1024;
  private static final int ACCEPT_TIMEOUT_MS = 60_000;

  private TimedTransfer() {}

  public static void main(String[] args) throws IOException {
    if (args.length == 4 && args[0].equals("receive")) {
      Measurement m = receive(InetAddress.getByName(args[1]), Integer.parseInt(args[2]));
      new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(Path.of(args[3]).toFile(), m.toJson());
    } else {
      System.err.println("bitopk: usage: TimedTransfer receive ADDRESS PORT FILE");
      System.exit(2);
    }
  }

  /** Bytes received and the seconds from the first byte to the end of the stream. */
  public record Measurement(long bytes, double seconds) {
    public double megabitsPerSecond() {
      return bytes * 8 / seconds / 1e6;
    }

    ObjectNode toJson() {
      ObjectNode node = new ObjectMapper().createObjectNode();
      node.put("bytes", bytes);
      node.put("seconds", seconds);
      node.put("mbit_per_second", megabitsPerSecond());
      return node;
    }
  }

  /** Accepts one connection on {@code address:port} and reads it to its end. */
  public static Measurement receive(InetAddress address, int port) throws IOException {
    try (ServerSocket server = new ServerSocket(port, 1, address)) {
      server.setSoTimeout(ACCEPT_TIMEOUT_MS);
      try (Socket socket = server.accept(); InputStream in = socket.getInputStream()) {
        byte[] buffer = new byte[CHUNK];
        int n = in.read(buffer);
        long start = System.nanoTime();
        long bytes = Math.max(n, 0);
        while (n >= 0) {
          n = in.read(buffer);
          bytes += Math.max(n, 0);
        }
        return new Measurement(bytes, (System.nanoTime() - start) / 1e9);
      }
    }
  }
}
