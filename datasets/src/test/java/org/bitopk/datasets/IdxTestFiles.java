package org.bitopk.datasets;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.zip.GZIPOutputStream;

/** Writes files in the exact IDX and CIFAR-10 binary formats, from the format descriptions. */
final class IdxTestFiles {
  private IdxTestFiles() {}

  static byte[] idxImages(int magic, int count, int rows, int cols, byte[] pixels) {
    ByteBuffer b = ByteBuffer.allocate(16 + pixels.length); // big-endian by default, as IDX is
    b.putInt(magic).putInt(count).putInt(rows).putInt(cols).put(pixels);
    return b.array();
  }

  static byte[] idxLabels(int magic, int count, byte[] labels) {
    ByteBuffer b = ByteBuffer.allocate(8 + labels.length);
    b.putInt(magic).putInt(count).put(labels);
    return b.array();
  }

  static byte[] randomBytes(int n, long seed) {
    byte[] bytes = new byte[n];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  static byte[] labelsMod(int n, int classes, long seed) {
    byte[] labels = new byte[n];
    Random random = new Random(seed);
    for (int i = 0; i < n; i++) {
      labels[i] = (byte) random.nextInt(classes);
    }
    return labels;
  }

  static byte[] gzip(byte[] content) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (OutputStream gz = new GZIPOutputStream(out)) {
      gz.write(content);
    }
    return out.toByteArray();
  }

  /** Writes {@code name} (gzipped to {@code name.gz} if asked) and returns the file written. */
  static Path write(Path dir, String name, byte[] content, boolean gz) throws IOException {
    Path file = dir.resolve(gz ? name + ".gz" : name);
    Files.write(file, gz ? gzip(content) : content);
    return file;
  }

  /** A complete MNIST-layout directory of small train/test sets; returns the raw pixels and labels written. */
  static byte[][] writeMnistDir(Path dir, int trainCount, int testCount, boolean gz, long seed) throws IOException {
    byte[] trainPixels = randomBytes(trainCount * 784, seed);
    byte[] trainLabels = labelsMod(trainCount, 10, seed + 1);
    byte[] testPixels = randomBytes(testCount * 784, seed + 2);
    byte[] testLabels = labelsMod(testCount, 10, seed + 3);
    write(dir, "train-images-idx3-ubyte", idxImages(2051, trainCount, 28, 28, trainPixels), gz);
    write(dir, "train-labels-idx1-ubyte", idxLabels(2049, trainCount, trainLabels), gz);
    write(dir, "t10k-images-idx3-ubyte", idxImages(2051, testCount, 28, 28, testPixels), gz);
    write(dir, "t10k-labels-idx1-ubyte", idxLabels(2049, testCount, testLabels), gz);
    return new byte[][] {trainPixels, trainLabels, testPixels, testLabels};
  }

  /** CIFAR-10 records: per record 1 label byte + 3072 pixel bytes. */
  static byte[] cifarRecords(byte[] labels, byte[] pixels) {
    byte[] out = new byte[labels.length * 3073];
    for (int r = 0; r < labels.length; r++) {
      out[r * 3073] = labels[r];
      System.arraycopy(pixels, r * 3072, out, r * 3073 + 1, 3072);
    }
    return out;
  }
}
