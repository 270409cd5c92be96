package org.bitopk.datasets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads through a file system other than the default local one: a {@code testfs://} scheme registered with
 * {@code fs.testfs.impl}, which serves local files and counts what it opens. Loading through it proves every
 * read goes through {@code Path.getFileSystem(conf)}, as {@code hdfs://} and {@code s3a://} need.
 */
class HadoopFileSystemTest {
  @TempDir Path dir;

  /** A RawLocalFileSystem under its own scheme, counting opened files. */
  public static class CountingFileSystem extends RawLocalFileSystem {
    static final AtomicInteger OPENED = new AtomicInteger();

    @Override
    public URI getUri() {
      return URI.create("testfs:///");
    }

    @Override
    public String getScheme() {
      return "testfs";
    }

    @Override
    public FSDataInputStream open(org.apache.hadoop.fs.Path f, int bufferSize) throws IOException {
      OPENED.incrementAndGet();
      return super.open(f, bufferSize);
    }
  }

  @Test
  void loadsThroughACustomScheme() throws IOException {
    byte[][] written = IdxTestFiles.writeMnistDir(dir, 12, 4, true, 21);
    Configuration conf = new Configuration();
    conf.set("fs.testfs.impl", CountingFileSystem.class.getName());
    conf.setBoolean("fs.testfs.impl.disable.cache", true);
    int before = CountingFileSystem.OPENED.get();
    TrainTest data = Datasets.load("fashion-mnist", "testfs://" + dir.toAbsolutePath(), conf);
    assertEquals(4, CountingFileSystem.OPENED.get() - before, "the four IDX files were opened through testfs");
    assertEquals(12, data.train().count());
    int[] labels = new int[4];
    for (int i = 0; i < 4; i++) {
      labels[i] = written[3][i];
    }
    assertArrayEquals(labels, data.test().labels());
    assertEquals(((written[0][0] & 0xff) / 255.0 - 0.2860) / 0.3530, data.train().features()[0], 1e-5);
    // The default Fashion-MNIST location is the driver's local disk even when the default FS is another one.
    Configuration remoteDefault = new Configuration(conf);
    remoteDefault.set("fs.defaultFS", "testfs:///");
    int beforeDefault = CountingFileSystem.OPENED.get();
    assertEquals(60_000, Datasets.load("fashion-mnist", null, remoteDefault).train().count());
    assertEquals(beforeDefault, CountingFileSystem.OPENED.get());
    // Without the registration the scheme is unknown and the error says so.
    Configuration plain = new Configuration();
    RuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
        () -> Datasets.load("mnist", "testfs://" + dir.toAbsolutePath(), plain));
    assertTrue(e.getMessage().contains("testfs"), e.getMessage());
  }
}
