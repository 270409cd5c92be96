package org.bitopk.lab;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;

/**
 * The network lab's timed TCP transfer, which checks that a shaped link carries its rate: {@code receive ADDRESS
 * PORT FILE} accepts one connection, reads it to the end and writes {@code {"bytes", "seconds",
 * "mbit_per_second"}} to FILE, timing from the first byte to the end of the stream (connection set-up and
 * TCP's slow start before the first byte are not the link's rate); {@code send ADDRESS PORT BYTES} connects
 * (retrying while the receiver is not listening yet) and sends BYTES zero bytes.
 */
public final class TimedTransfer {
  private static final int CHUNK = 64 * 1024;
  private static final int ACCEPT_TIMEOUT_MS = 60_000;
  private static final int CONNECT_ATTEMPTS = 50;

  private TimedTransfer() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    if (args.length == 4 && args[0].equals("receive")) {
      Measurement m = receive(InetAddress.getByName(args[1]), Integer.parseInt(args[2]));
      new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(Path.of(args[3]).toFile(), m.toJson());
    } else if (args.length == 4 && args[0].equals("send")) {
      send(new InetSocketAddress(args[1], Integer.parseInt(args[2])), Long.parseLong(args[3]));
    } else {
      System.err.println("bitopk: usage: TimedTransfer receive ADDRESS PORT FILE | send ADDRESS PORT BYTES");
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

  /** Sends {@code bytes} zero bytes to {@code target}, retrying the connection while nobody listens. */
  public static void send(InetSocketAddress target, long bytes) throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try (Socket socket = new Socket()) {
        socket.connect(target, 5_000);
        try (OutputStream out = socket.getOutputStream()) {
          byte[] zeros = new byte[CHUNK];
          for (long left = bytes; left > 0; left -= CHUNK) {
            out.write(zeros, 0, (int) Math.min(CHUNK, left));
          }
        }
        return;
      } catch (ConnectException notListening) {
        if (attempt == CONNECT_ATTEMPTS) {
          throw notListening;
        }
        Thread.sleep(100);
      }
    }
  }
}
