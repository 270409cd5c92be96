package org.bitopk.datasets;

import static org.bitopk.datasets.IdxFormatTest.assertMessage;
import static org.bitopk.datasets.IdxFormatTest.hadoop;
import static org.bitopk.datasets.IdxTestFiles.cifarRecords;
import static org.bitopk.datasets.IdxTestFiles.labelsMod;
import static org.bitopk.datasets.IdxTestFiles.randomBytes;
import static org.bitopk.datasets.IdxTestFiles.write;
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
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class Cifar10FormatTest {
  private static final double[] MEAN = {0.4914, 0.4822, 0.4465};
  private static final double[] STD = {0.2470, 0.2435, 0.2616};

  @TempDir Path dir;

  private final Configuration conf = new Configuration();

  /** Writes 5 training batches of {@code 1..5} records and a test batch of 2; returns [labels, pixels] per file. */
  private byte[][][] writeBatches(Path target, boolean gz) throws IOException {
    Files.createDirectories(target);
    byte[][][] written = new byte[6][][];
    for (int f = 0; f < 6; f++) {
      int records = f < 5 ? f + 1 : 2;
      byte[] labels = labelsMod(records, 10, 100 + f);
      byte[] pixels = randomBytes(records * 3072, 200 + f);
      String name = f < 5 ? "data_batch_" + (f + 1) + ".bin" : "test_batch.bin";
      write(target, name, cifarRecords(labels, pixels), gz);
      written[f] = new byte[][] {labels, pixels};
    }
    return written;
  }

  @ParameterizedTest(name = "gz={0} nested={1}")
  @CsvSource({"false,false", "true,false", "false,true", "true,true"})
  void readsChannelPlanarRecordsInFileOrder(boolean gz, boolean nested) throws IOException {
    byte[][][] written = writeBatches(nested ? dir.resolve("cifar-10-batches-bin") : dir, gz);
    TrainTest data = Datasets.load("cifar10", dir.toUri().toString(), conf);
    assertEquals(15, data.train().count());
    assertEquals(2, data.test().count());
    assertEquals(3, data.train().channels());
    assertEquals(32, data.train().height());
    assertEquals(32, data.train().width());
    int example = 0;
    for (int f = 0; f < 5; f++) {
      example = check(data.train(), example, written[f]);
    }
    check(data.test(), 0, written[5]);
    for (int c = 0; c < 3; c++) {
      assertEquals(-MEAN[c] / STD[c], data.train().blackLevel()[c], 1e-6);
    }
  }

  /** Pixel (c, y, x) of a record is byte 1 + 1024c + 32y + x; normalised per channel. */
  private static int check(LabeledImages images, int firstExample, byte[][] written) {
    byte[] labels = written[0];
    byte[] pixels = written[1];
    for (int r = 0; r < labels.length; r++) {
      int example = firstExample + r;
      assertEquals(labels[r], images.labels()[example]);
      for (int c = 0; c < 3; c++) {
        for (int y = 0; y < 32; y += 7) {
          for (int x = 0; x < 32; x += 5) {
            int raw = pixels[r * 3072 + c * 1024 + y * 32 + x] & 0xff;
            assertEquals((raw / 255.0 - MEAN[c]) / STD[c],
                images.features()[example * 3072 + c * 1024 + y * 32 + x], 1e-5);
          }
        }
      }
    }
    return firstExample + labels.length;
  }

  @ParameterizedTest(name = "gz={0}")
  @ValueSource(booleans = {false, true})
  void sizeNotAMultipleOfTheRecord(boolean gz) throws IOException {
    byte[] records = cifarRecords(new byte[] {1, 2}, new byte[2 * 3072]);
    Path file = write(dir, "data_batch_1.bin", Arrays.copyOf(records, records.length - 5), gz);
    assertMessage(() -> Cifar10Format.read(hadoop(file), conf), file, "size 6141 bytes",
        "not a multiple of the 3073-byte record", "byte offset 3073 (record 1) is truncated");
  }

  @ParameterizedTest(name = "gz={0}")
  @ValueSource(booleans = {false, true})
  void labelOutOfRange(boolean gz) throws IOException {
    Path file = write(dir, "test_batch.bin", cifarRecords(new byte[] {3, 9, 10}, new byte[3 * 3072]), gz);
    assertMessage(() -> Cifar10Format.read(hadoop(file), conf), file, "label at byte offset 6146",
        "(record 2) is 10", "expected 0..9");
  }

  @Test
  void emptyAndMissingFiles() throws IOException {
    Path empty = write(dir, "data_batch_1.bin", new byte[0], false);
    assertMessage(() -> Cifar10Format.read(hadoop(empty), conf), empty, "file is empty");
    writeBatches(dir, false);
    Files.delete(dir.resolve("data_batch_3.bin"));
    assertMessage(() -> Datasets.load("cifar10", dir.toString(), conf), dir.resolve("data_batch_3.bin"),
        "cifar10 not found", "data_batch_3.bin.gz");
    IllegalArgumentException noPath =
        assertThrows(IllegalArgumentException.class, () -> Datasets.load("cifar10", null, conf));
    assertTrue(noPath.getMessage().contains("no default location") && noPath.getMessage().contains("--data"),
        noPath.getMessage());
  }
}
