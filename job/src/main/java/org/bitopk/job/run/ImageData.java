package org.bitopk.job.run;

import static org.bitopk.job.config.TrainFlags.DATA;
import static org.bitopk.job.config.TrainFlags.DATASET;
import static org.bitopk.job.config.TrainFlags.flag;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.TrainTest;
import org.bitopk.job.BadInputException;
import org.bitopk.job.config.TrainingConfig;

/** An image data set's files (MNIST, Fashion-MNIST, CIFAR-10, or a generated set), read on the driver. */
final class ImageData {
  private ImageData() {}

  /** The image data set of {@code config}, or one line naming --data/--dataset and what is wrong. */
  static TrainTest load(TrainingConfig config, Configuration conf) {
    if (config.data().isPresent()) {
      String data = config.data().get();
      Path dir = new Path(data);
      FileSystem dataFs = HadoopLocations.fileSystem(flag(DATA), data, dir, conf);
      try {
        FileStatus status = dataFs.getFileStatus(dir);
        if (!status.isDirectory()) {
          throw new BadInputException(flag(DATA) + " " + data + " is a file, not a directory: pass the "
              + "directory that holds the " + config.dataset() + " files");
        }
      } catch (FileNotFoundException missing) {
        // reported below by the loader, naming the files it looked for
      } catch (IOException e) {
        throw new BadInputException(flag(DATA) + " " + data + ": cannot access it: " + e.getMessage(), e);
      }
    }
    try {
      return Datasets.load(config.dataset(), config.data().orElse(null), conf);
    } catch (IllegalArgumentException e) {
      String flag = config.dataset().startsWith("synthetic") ? flag(DATASET) : flag(DATA);
      throw new BadInputException(flag + ": " + e.getMessage(), e);
    } catch (UncheckedIOException e) {
      throw new BadInputException(flag(DATA) + ": cannot read the " + config.dataset() + " files: "
          + e.getMessage(), e);
    }
  }
}
