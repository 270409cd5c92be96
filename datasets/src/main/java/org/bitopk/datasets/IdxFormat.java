package org.bitopk.datasets;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The IDX format of MNIST and Fashion-MNIST: a big-endian header (magic number, then one 32-bit size per
 * dimension) followed by unsigned bytes. Images are magic 2051 ({@code 0x00000803}: unsigned byte, 3
 * dimensions: count, rows, columns), labels magic 2049 ({@code 0x00000801}: unsigned byte, 1 dimension).
 *
 * <p>Each file is read in one bulk read into an array of exactly the size its header declares, so a short
 * file is reported with the offset where it ends and a long one with the offset where it should have ended.
 */
final class IdxFormat {
  static final int IMAGES_MAGIC = 2051;
  static final int LABELS_MAGIC = 2049;
  static final int IMAGES_HEADER = 16;
  static final int LABELS_HEADER = 8;

  private IdxFormat() {}

  /** Raw images as stored: {@code count * rows * cols} bytes, example-major. */
  static final class Images {
    final Path path;
    final int count;
    final int rows;
    final int cols;
    final byte[] pixels;

    Images(Path path, int count, int rows, int cols, byte[] pixels) {
      this.path = path;
      this.count = count;
      this.rows = rows;
      this.cols = cols;
      this.pixels = pixels;
    }
  }

  static Images readImages(Path path, Configuration conf) {
    try (DataFile file = DataFile.open(path, conf)) {
      byte[] header = new byte[IMAGES_HEADER];
      int n = file.readUpTo(header, 0, header.length);
      if (n < 4) {
        throw new DatasetFormatException(path + ": truncated at byte offset " + n
            + ", expected a 16-byte IDX image header (magic 2051, count, rows, columns)");
      }
      int magic = DataFile.bigEndianInt(header, 0);
      if (magic != IMAGES_MAGIC) {
        throw new DatasetFormatException(path + ": magic number at offset 0 is " + magic
            + ", expected " + IMAGES_MAGIC + " (IDX images: unsigned bytes, 3 dimensions)"
            + (magic == LABELS_MAGIC ? "; this is a label file" : ""));
      }
      if (n < header.length) {
        throw new DatasetFormatException(path + ": truncated at byte offset " + n
            + ", expected a 16-byte IDX image header (magic 2051, count, rows, columns)");
      }
      int count = DataFile.bigEndianInt(header, 4);
      int rows = DataFile.bigEndianInt(header, 8);
      int cols = DataFile.bigEndianInt(header, 12);
      if (count < 0) {
        throw new DatasetFormatException(path + ": image count at offset 4 is " + count + ", expected >= 0");
      }
      if (rows < 1) {
        throw new DatasetFormatException(path + ": rows at offset 8 is " + rows + ", expected >= 1");
      }
      if (cols < 1) {
        throw new DatasetFormatException(path + ": columns at offset 12 is " + cols + ", expected >= 1");
      }
      long size = (long) count * rows * cols;
      if (size > Integer.MAX_VALUE - 8) {
        throw new DatasetFormatException(path + ": header declares " + count + " images of " + rows + "x"
            + cols + " = " + size + " bytes, more than one array can hold");
      }
      byte[] pixels = file.readDeclared((int) size);
      int read = pixels.length;
      if (read < size) {
        throw new DatasetFormatException(path + ": truncated at byte offset " + (IMAGES_HEADER + read)
            + ", expected " + (IMAGES_HEADER + size) + " bytes (16-byte header + " + count + " images of "
            + rows + "x" + cols + ")");
      }
      if (!file.atEnd()) {
        throw new DatasetFormatException(path + ": unexpected data after byte offset " + (IMAGES_HEADER + size)
            + "; the header declares " + count + " images of " + rows + "x" + cols);
      }
      return new Images(path, count, rows, cols, pixels);
    }
  }

  /** Raw labels, each checked to be in {@code [0, numClasses)}. */
  static byte[] readLabels(Path path, Configuration conf, int numClasses) {
    try (DataFile file = DataFile.open(path, conf)) {
      byte[] header = new byte[LABELS_HEADER];
      int n = file.readUpTo(header, 0, header.length);
      if (n < 4) {
        throw new DatasetFormatException(path + ": truncated at byte offset " + n
            + ", expected an 8-byte IDX label header (magic 2049, count)");
      }
      int magic = DataFile.bigEndianInt(header, 0);
      if (magic != LABELS_MAGIC) {
        throw new DatasetFormatException(path + ": magic number at offset 0 is " + magic
            + ", expected " + LABELS_MAGIC + " (IDX labels: unsigned bytes, 1 dimension)"
            + (magic == IMAGES_MAGIC ? "; this is an image file" : ""));
      }
      if (n < header.length) {
        throw new DatasetFormatException(path + ": truncated at byte offset " + n
            + ", expected an 8-byte IDX label header (magic 2049, count)");
      }
      int count = DataFile.bigEndianInt(header, 4);
      if (count < 0) {
        throw new DatasetFormatException(path + ": label count at offset 4 is " + count + ", expected >= 0");
      }
      byte[] labels = file.readDeclared(count);
      int read = labels.length;
      if (read < count) {
        throw new DatasetFormatException(path + ": truncated at byte offset " + (LABELS_HEADER + read)
            + ", expected " + (LABELS_HEADER + (long) count) + " bytes (8-byte header + " + count + " labels)");
      }
      if (!file.atEnd()) {
        throw new DatasetFormatException(path + ": unexpected data after byte offset " + (LABELS_HEADER + count)
            + "; the header declares " + count + " labels");
      }
      for (int i = 0; i < count; i++) {
        int label = labels[i] & 0xff;
        if (label >= numClasses) {
          throw new DatasetFormatException(path + ": label at byte offset " + (LABELS_HEADER + i)
              + " (example " + i + ") is " + label + ", expected 0.." + (numClasses - 1));
        }
      }
      return labels;
    }
  }

  /**
   * Reads an image file and its label file, checks they agree with each other and with the expected image
   * size, and normalises the pixels.
   */
  static LabeledImages load(Path imagesPath, Path labelsPath, Configuration conf, int rows, int cols,
      int numClasses, Normalization normalization) {
    Images images = readImages(imagesPath, conf);
    if (images.rows != rows || images.cols != cols) {
      throw new DatasetFormatException(imagesPath + ": image size (rows at offset 8, columns at offset 12) is "
          + images.rows + "x" + images.cols + ", expected " + rows + "x" + cols);
    }
    byte[] rawLabels = readLabels(labelsPath, conf, numClasses);
    if (rawLabels.length != images.count) {
      throw new DatasetFormatException(labelsPath + ": label count at offset 4 is " + rawLabels.length
          + " but " + imagesPath + " declares " + images.count + " images (count at offset 4); expected equal");
    }
    float[] features = new float[images.pixels.length];
    normalization.convert(images.pixels, 0, features, 0, features.length);
    int[] labels = new int[rawLabels.length];
    for (int i = 0; i < labels.length; i++) {
      labels[i] = rawLabels[i] & 0xff;
    }
    return LabeledImages.ofFiniteFeatures(features, labels, 1, rows, cols, numClasses, normalization.blackLevel());
  }
}
