package org.bitopk.datasets;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The CIFAR-10 binary format ({@code data_batch_1.bin} … {@code data_batch_5.bin}, {@code test_batch.bin}):
 * records of 3073 bytes, one label byte then 3072 pixel bytes, channel-planar (1024 red, 1024 green,
 * 1024 blue, each row-major 32x32). That is already the CHW layout of {@link LabeledImages}, so each record
 * converts with one table lookup per byte.
 */
final class Cifar10Format {
  static final int CHANNELS = 3;
  static final int SIDE = 32;
  static final int PLANE = SIDE * SIDE;
  static final int PIXELS = CHANNELS * PLANE;
  static final int RECORD = 1 + PIXELS;
  static final int CLASSES = 10;

  private Cifar10Format() {}

  /** Reads and concatenates the given batch files, in order. */
  static LabeledImages load(List<Path> files, Configuration conf, Normalization normalization) {
    byte[][] contents = new byte[files.size()][];
    long records = 0;
    for (int f = 0; f < files.size(); f++) {
      contents[f] = read(files.get(f), conf);
      records += contents[f].length / RECORD;
    }
    if (records * PIXELS > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(records + " CIFAR-10 records are more than one array can hold");
    }
    float[] features = new float[(int) (records * PIXELS)];
    int[] labels = new int[(int) records];
    int example = 0;
    for (byte[] content : contents) {
      for (int offset = 0; offset < content.length; offset += RECORD) {
        labels[example] = content[offset];
        normalization.convert(content, offset + 1, features, example * PIXELS, PLANE);
        example++;
      }
    }
    return LabeledImages.ofFiniteFeatures(features, labels, CHANNELS, SIDE, SIDE, CLASSES, normalization.blackLevel());
  }

  /** One batch file's bytes, validated: a positive multiple of 3073 bytes, every label in 0..9. */
  static byte[] read(Path path, Configuration conf) {
    byte[] content;
    try (DataFile file = DataFile.open(path, conf)) {
      if (!file.compressed()) {
        checkSize(path, file.storedLength());
      }
      content = file.readRemaining();
    }
    checkSize(path, content.length);
    for (int offset = 0; offset < content.length; offset += RECORD) {
      int label = content[offset] & 0xff;
      if (label >= CLASSES) {
        throw new DatasetFormatException(path + ": label at byte offset " + offset + " (record "
            + offset / RECORD + ") is " + label + ", expected 0.." + (CLASSES - 1));
      }
    }
    return content;
  }

  private static void checkSize(Path path, long size) {
    if (size == 0) {
      throw new DatasetFormatException(path + ": file is empty, expected records of " + RECORD
          + " bytes (1 label + 3072 pixels)");
    }
    if (size % RECORD != 0) {
      long complete = size / RECORD;
      throw new DatasetFormatException(path + ": size " + size + " bytes is not a multiple of the " + RECORD
          + "-byte record (1 label + 3072 pixels); the record at byte offset " + complete * RECORD
          + " (record " + complete + ") is truncated");
    }
    if (size / RECORD * PIXELS > Integer.MAX_VALUE - 8) {
      throw new DatasetFormatException(path + ": " + size + " bytes is too large for one array");
    }
  }
}
