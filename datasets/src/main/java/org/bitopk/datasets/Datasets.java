package org.bitopk.datasets;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.jspecify.annotations.Nullable;

/**
 * Loads a named data set from a directory on any Hadoop file system ({@code file://}, {@code hdfs://},
 * {@code s3a://} when its jars are present; a path without scheme uses the configuration's default file
 * system).
 *
 * <p>Expected directory layouts:
 * <ul>
 *   <li>{@code mnist}, {@code fashion-mnist}: {@code train-images-idx3-ubyte}, {@code train-labels-idx1-ubyte},
 *       {@code t10k-images-idx3-ubyte}, {@code t10k-labels-idx1-ubyte}, each raw or gzipped ({@code .gz}).
 *       Fashion-MNIST defaults to {@value #FASHION_MNIST_DEFAULT} on the driver's local disk, where the
 *       Debian package {@code dataset-fashion-mnist} installs it.</li>
 *   <li>{@code cifar10}: {@code data_batch_1.bin} … {@code data_batch_5.bin} and {@code test_batch.bin} (raw or
 *       {@code .gz}), in the directory itself or in its {@code cifar-10-batches-bin/} subdirectory (the
 *       layout of the official archive once unpacked).</li>
 *   <li>{@code synthetic[:key=value,...]}: generated, no directory (see {@link SyntheticData}).</li>
 * </ul>
 * Files are read on the driver (they are small next to a cluster's memory) and validated completely before
 * anything is returned. Pixels are normalised as described in {@link Normalization}.
 */
public final class Datasets {
  public static final String MNIST = "mnist";
  public static final String FASHION_MNIST = "fashion-mnist";
  public static final String CIFAR10 = "cifar10";
  public static final String FASHION_MNIST_DEFAULT = "/usr/share/datasets/fashion-mnist";

  static final String CHOICES = "mnist, fashion-mnist, cifar10, synthetic[:n=..,test=..,classes=..,shape=CxHxW,"
      + "noise=..,seed=..]";

  private Datasets() {}

  /**
   * @param name one of {@code mnist}, {@code fashion-mnist}, {@code cifar10}, {@code synthetic[:...]}
   * @param pathOrNull the data directory as a Hadoop path/URI, or null for the default location
   * @param conf Hadoop configuration used to resolve the file system (null: a default one)
   * @throws IllegalArgumentException for an unknown name, a missing directory or file (saying what to
   *     install or pass), or a malformed file ({@link DatasetFormatException})
   */
  public static TrainTest load(String name, @Nullable String pathOrNull, @Nullable Configuration conf) {
    if (name == null) {
      throw new IllegalArgumentException("data set name must not be null; expected one of " + CHOICES);
    }
    Configuration configuration = conf == null ? new Configuration() : conf;
    String trimmed = name.trim();
    if (trimmed.equals(SyntheticData.NAME) || trimmed.startsWith(SyntheticData.NAME + ":")) {
      if (pathOrNull != null) {
        throw new IllegalArgumentException("data set '" + name + "' is generated and reads no files, but a data "
            + "path was given: " + pathOrNull);
      }
      return SyntheticData.parse(trimmed).generate();
    }
    switch (trimmed) {
      case MNIST:
        return loadIdx(MNIST, requireDirectory(MNIST, pathOrNull,
            "directory holding train-images-idx3-ubyte[.gz] etc."), configuration, Normalization.MNIST, false);
      case FASHION_MNIST:
        boolean isDefault = pathOrNull == null;
        // The package installs on the driver's local disk, whatever the cluster's default file system is.
        Path fashionDir = isDefault ? new Path("file://" + FASHION_MNIST_DEFAULT) : new Path(pathOrNull);
        return loadIdx(FASHION_MNIST, fashionDir, configuration, Normalization.FASHION_MNIST, isDefault);
      case CIFAR10:
        return loadCifar10(requireDirectory(CIFAR10, pathOrNull,
            "directory holding data_batch_1.bin .. data_batch_5.bin and test_batch.bin"), configuration);
      default:
        throw new IllegalArgumentException("unknown data set '" + name + "'; expected one of " + CHOICES);
    }
  }

  private static Path requireDirectory(String name, String pathOrNull, String what) {
    if (pathOrNull == null) {
      throw new IllegalArgumentException(name + " has no default location: pass --data <path> (a " + what + ")");
    }
    return new Path(pathOrNull);
  }

  static TrainTest loadIdx(String name, Path dir, Configuration conf, Normalization normalization,
      boolean isDefault) {
    String hint = isDefault
        ? "; install it with 'apt-get install dataset-fashion-mnist' or pass --data <path>"
        : "";
    Path trainImages = find(dir, conf, "train-images-idx3-ubyte", name, hint);
    Path trainLabels = find(dir, conf, "train-labels-idx1-ubyte", name, hint);
    Path testImages = find(dir, conf, "t10k-images-idx3-ubyte", name, hint);
    Path testLabels = find(dir, conf, "t10k-labels-idx1-ubyte", name, hint);
    LabeledImages train = IdxFormat.load(trainImages, trainLabels, conf, 28, 28, 10, normalization);
    LabeledImages test = IdxFormat.load(testImages, testLabels, conf, 28, 28, 10, normalization);
    return TrainTest.of(train, test);
  }

  static TrainTest loadCifar10(Path dir, Configuration conf) {
    Path nested = new Path(dir, "cifar-10-batches-bin");
    Path base = isFile(dir, "test_batch.bin", conf) || !isFile(nested, "test_batch.bin", conf) ? dir : nested;
    List<Path> trainFiles = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      trainFiles.add(find(base, conf, "data_batch_" + i + ".bin", CIFAR10, ""));
    }
    List<Path> testFiles = List.of(find(base, conf, "test_batch.bin", CIFAR10, ""));
    return TrainTest.of(Cifar10Format.load(trainFiles, conf, Normalization.CIFAR10),
        Cifar10Format.load(testFiles, conf, Normalization.CIFAR10));
  }

  private static boolean isFile(Path dir, String fileName, Configuration conf) {
    return DataFile.isFile(new Path(dir, fileName), conf) || DataFile.isFile(new Path(dir, fileName + ".gz"), conf);
  }

  /** The raw file if present, else its {@code .gz}; raw first because it needs no decompression. */
  private static Path find(Path dir, Configuration conf, String fileName, String dataset, String hint) {
    Path raw = new Path(dir, fileName);
    if (DataFile.isFile(raw, conf)) {
      return raw;
    }
    Path gz = new Path(dir, fileName + ".gz");
    if (DataFile.isFile(gz, conf)) {
      return gz;
    }
    String missingDir = !DataFile.exists(dir, conf) ? " (the directory " + dir + " does not exist)"
        : DataFile.isFile(dir, conf) ? " (" + dir + " is a file, not a directory)" : "";
    throw new IllegalArgumentException(dataset + " not found: neither " + raw + " nor " + gz + " exists"
        + missingDir + hint);
  }
}
