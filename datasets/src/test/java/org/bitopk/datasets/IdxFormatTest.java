package org.bitopk.datasets;

import static org.bitopk.datasets.IdxTestFiles.idxImages;
import static org.bitopk.datasets.IdxTestFiles.idxLabels;
import static org.bitopk.datasets.IdxTestFiles.randomBytes;
import static org.bitopk.datasets.IdxTestFiles.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdxFormatTest {
  @TempDir Path dir;

  private final Configuration conf = new Configuration();

  @ParameterizedTest(name = "gz={0}")
  @ValueSource(booleans = {false, true})
  void loadsMnistLayoutAndNormalises(boolean gz) throws IOException {
    byte[][] written = IdxTestFiles.writeMnistDir(dir, 37, 11, gz, 5);
    TrainTest loaded = Datasets.load("mnist", dir.toUri().toString(), conf);
    check(loaded.train(), written[0], written[1]);
    check(loaded.test(), written[2], written[3]);
  }

  private static void check(LabeledImages images, byte[] pixels, byte[] labels) {
    assertEquals(labels.length, images.count());
    assertEquals(784, images.featureLength());
    for (int i = 0; i < labels.length; i++) {
      assertEquals(labels[i], images.labels()[i]);
    }
    for (int i = 0; i < pixels.length; i++) {
      double expected = ((pixels[i] & 0xff) / 255.0 - 0.1307) / 0.3081;
      assertEquals(expected, images.features()[i], 1e-5);
    }
    assertEquals((0 - 0.1307) / 0.3081, images.blackLevel()[0], 1e-6);
  }

  @Test
  void rawFileIsPreferredAndGzFallbackWorksPerFile() throws IOException {
    byte[][] written = IdxTestFiles.writeMnistDir(dir, 5, 3, true, 9);
    // A raw copy of one file next to the .gz: the raw one is read.
    byte[] otherPixels = randomBytes(5 * 784, 99);
    write(dir, "train-images-idx3-ubyte", idxImages(2051, 5, 28, 28, otherPixels), false);
    TrainTest loaded = Datasets.load("mnist", dir.toString(), conf);
    check(loaded.train(), otherPixels, written[1]);
  }

  @ParameterizedTest(name = "gz={0}")
  @ValueSource(booleans = {false, true})
  void badImageMagic(boolean gz) throws IOException {
    Path file = write(dir, "img", idxImages(2049, 2, 28, 28, new byte[2 * 784]), gz);
    assertMessage(() -> IdxFormat.readImages(hadoop(file), conf), file, "magic number at offset 0 is 2049",
        "expected 2051", "label file");
  }

  @ParameterizedTest(name = "gz={0}")
  @ValueSource(booleans = {false, true})
  void badLabelMagic(boolean gz) throws IOException {
    Path file = write(dir, "lab", idxLabels(2051, 2, new byte[2]), gz);
    assertMessage(() -> IdxFormat.readLabels(hadoop(file), conf, 10), file, "magic number at offset 0 is 2051",
        "expected 2049");
  }

  @Test
  void wrongDimensions() throws IOException {
    IdxTestFiles.writeMnistDir(dir, 4, 2, false, 1);
    Path file = write(dir, "train-images-idx3-ubyte", idxImages(2051, 4, 27, 29, new byte[4 * 27 * 29]), false);
    assertMessage(() -> Datasets.load("mnist", dir.toString(), conf), file, "rows at offset 8",
        "columns at offset 12", "27x29", "expected 28x28");
  }

  @Test
  void nonPositiveDimension() throws IOException {
    Path file = write(dir, "img", idxImages(2051, 4, 0, 28, new byte[0]), false);
    assertMessage(() -> IdxFormat.readImages(hadoop(file), conf), file, "rows at offset 8 is 0");
    Path negative = write(dir, "neg", idxImages(2051, -1, 28, 28, new byte[0]), false);
    assertMessage(() -> IdxFormat.readImages(hadoop(negative), conf), negative, "image count at offset 4 is -1");
  }

  @ParameterizedTest(name = "gz={0}")
  @ValueSource(booleans = {false, true})
  void countMismatch(boolean gz) throws IOException {
    IdxTestFiles.writeMnistDir(dir, 4, 2, gz, 1);
    Path labels = write(dir, "train-labels-idx1-ubyte", idxLabels(2049, 5, new byte[5]), gz);
    assertMessage(() -> Datasets.load("mnist", dir.toString(), conf), labels, "label count at offset 4 is 5",
        "declares 4 images", "train-images-idx3-ubyte");
  }

  @ParameterizedTest(name = "gz={0}")
  @ValueSource(booleans = {false, true})
  void labelOutOfRange(boolean gz) throws IOException {
    byte[] labels = {1, 2, 3, 10, 4};
    Path file = write(dir, "lab", idxLabels(2049, 5, labels), gz);
    assertMessage(() -> IdxFormat.readLabels(hadoop(file), conf, 10), file, "label at byte offset 11",
        "(example 3) is 10", "expected 0..9");
    labels[3] = (byte) 200;
    Path unsigned = write(dir, "lab2", idxLabels(2049, 5, labels), gz);
    assertMessage(() -> IdxFormat.readLabels(hadoop(unsigned), conf, 10), unsigned, "is 200");
  }

  @ParameterizedTest(name = "gz={0}")
  @ValueSource(booleans = {false, true})
  void truncatedImages(boolean gz) throws IOException {
    byte[] full = idxImages(2051, 3, 28, 28, new byte[3 * 784]);
    Path file = write(dir, "img", Arrays.copyOf(full, full.length - 100), gz);
    assertMessage(() -> IdxFormat.readImages(hadoop(file), conf), file, "truncated at byte offset 2268",
        "expected 2368 bytes");
    Path header = write(dir, "hdr", Arrays.copyOf(full, 10), gz);
    assertMessage(() -> IdxFormat.readImages(hadoop(header), conf), header, "truncated at byte offset 10",
        "16-byte IDX image header");
  }

  @ParameterizedTest(name = "gz={0}")
  @ValueSource(booleans = {false, true})
  void truncatedLabels(boolean gz) throws IOException {
    byte[] full = idxLabels(2049, 6, new byte[6]);
    Path file = write(dir, "lab", Arrays.copyOf(full, 11), gz);
    assertMessage(() -> IdxFormat.readLabels(hadoop(file), conf, 10), file, "truncated at byte offset 11",
        "expected 14 bytes");
  }

  /** A corrupt count announcing gigabytes is reported as truncation, without allocating the announced size. */
  @ParameterizedTest(name = "gz={0}")
  @ValueSource(booleans = {false, true})
  void hugeDeclaredCountsFailAsTruncation(boolean gz) throws IOException {
    Path images = write(dir, "img", idxImages(2051, 2_000_000, 28, 28, new byte[784]), gz);
    assertMessage(() -> IdxFormat.readImages(hadoop(images), conf), images, "truncated at byte offset 800",
        "expected 1568000016 bytes");
    Path labels = write(dir, "lab", idxLabels(2049, 2_000_000_000, new byte[3]), gz);
    assertMessage(() -> IdxFormat.readLabels(hadoop(labels), conf, 10), labels, "truncated at byte offset 11",
        "expected 2000000008 bytes");
  }

  @ParameterizedTest(name = "gz={0}")
  @ValueSource(booleans = {false, true})
  void trailingBytes(boolean gz) throws IOException {
    byte[] full = idxImages(2051, 1, 28, 28, new byte[784]);
    Path file = write(dir, "img", Arrays.copyOf(full, full.length + 1), gz);
    assertMessage(() -> IdxFormat.readImages(hadoop(file), conf), file, "unexpected data after byte offset 800");
  }

  /** A gzip stream cut short: the JDK's inflater error is reported with file and offset. */
  @Test
  void truncatedGzipStream() throws IOException {
    byte[] compressed = IdxTestFiles.gzip(idxImages(2051, 20, 28, 28, randomBytes(20 * 784, 3)));
    Path file = dir.resolve("img.gz");
    Files.write(file, Arrays.copyOf(compressed, compressed.length / 2));
    assertMessage(() -> IdxFormat.readImages(hadoop(file), conf), file, "gzip data corrupt or truncated",
        "decompressed byte offset");
    Path notGzip = dir.resolve("plain.gz");
    Files.write(notGzip, idxImages(2051, 1, 28, 28, new byte[784]));
    assertMessage(() -> IdxFormat.readImages(hadoop(notGzip), conf), notGzip, "not a valid gzip file");
  }

  @Test
  void missingFilesNameWhatWasLookedFor() throws IOException {
    assertMessage(() -> Datasets.load("mnist", dir.toString(), conf), dir.resolve("train-images-idx3-ubyte"),
        "train-images-idx3-ubyte.gz", "mnist not found");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Datasets.loadIdx("fashion-mnist", hadoop(dir.resolve("absent")), conf, Normalization.FASHION_MNIST,
            true));
    assertTrue(e.getMessage().contains("apt-get install dataset-fashion-mnist"), e.getMessage());
    assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    assertTrue(e.getMessage().contains("--data"), e.getMessage());
  }

  static org.apache.hadoop.fs.Path hadoop(Path file) {
    return new org.apache.hadoop.fs.Path(file.toUri());
  }

  /** One exception, of the library's format type where the file is malformed, naming file and details. */
  static void assertMessage(org.junit.jupiter.api.function.Executable action, Path file, String... parts) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, action);
    String message = e.getMessage();
    assertTrue(message.contains(file.getFileName().toString()), "message names the file: " + message);
    for (String part : parts) {
      assertTrue(message.contains(part), "message contains '" + part + "': " + message);
    }
  }

  @Test
  void readLabelsReturnsBytes() throws IOException {
    byte[] labels = {0, 9, 5};
    Path file = write(dir, "lab", idxLabels(2049, 3, labels), true);
    assertArrayEquals(labels, IdxFormat.readLabels(hadoop(file), conf, 10));
  }
}
