package org.bitopk.lab.reproduction;

import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import javax.imageio.ImageIO;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.BadInputException;

/**
 * Copies a chart into the images directory, scaled down so that the repository stays small: at most
 * {@link #MAX_WIDTH} pixels wide and at most {@link #MAX_BYTES} bytes (narrower until it fits, never below
 * {@link #MIN_WIDTH}).
 */
final class Figures {
  static final int MAX_WIDTH = 800;
  static final int MIN_WIDTH = 320;
  static final long MAX_BYTES = 150 * 1024;

  private Figures() {}

  /**
   * Writes {@code source} (any Hadoop URI) scaled into {@code target} (a local file).
   *
   * @throws UncheckedIOException when the source is not a readable image or the target cannot be written
   */
  static void copyScaled(Path source, java.nio.file.Path target, Configuration conf) {
    try {
      BufferedImage image;
      FileSystem fs = source.getFileSystem(conf);
      try (InputStream in = fs.open(source)) {
        image = ImageIO.read(in);
      }
      if (image == null) {
        throw new IOException(source + " is not an image ImageIO can read");
      }
      int width = Math.min(MAX_WIDTH, image.getWidth());
      byte[] png = scaled(image, width);
      while (png.length > MAX_BYTES && width > MIN_WIDTH) {
        width = Math.max(MIN_WIDTH, (int) (width * 0.85));
        png = scaled(image, width);
      }
      Files.createDirectories(target.toAbsolutePath().getParent());
      requireFileOrAbsent("--images", target);
      // beside it, then renamed over it: a link under the chart's name is replaced, never written through
      java.nio.file.Path temporary = target.resolveSibling("." + target.getFileName() + "." + java.util.UUID
          .randomUUID() + ".tmp");
      Files.write(temporary, png, java.nio.file.StandardOpenOption.CREATE_NEW);
      try {
        Files.move(temporary, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(temporary);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy the chart " + source + " to " + target + ": " + e.getMessage(), e);
    }
  }

  /**
   * Refuses {@code file} when it is there and is not a regular file: a symbolic link (its target is somebody
   * else's), a FIFO (reading it would block), a socket, device or directory.
   *
   * @throws BadInputException naming {@code flag} and the file
   */
  static void requireFileOrAbsent(String flag, java.nio.file.Path file) {
    try {
      java.nio.file.attribute.BasicFileAttributes a = Files.readAttributes(file,
          java.nio.file.attribute.BasicFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
      if (!a.isRegularFile()) {
        String kind = a.isSymbolicLink() ? "a symbolic link" : a.isDirectory() ? "a directory"
            : "a FIFO, socket or device";
        throw new BadInputException(flag + ": " + file + " is " + kind + ", not a file this command wrote: move it "
            + "away or name another file (the document is not written)");
      }
    } catch (java.nio.file.NoSuchFileException absent) {
      // written new
    } catch (IOException e) {
      throw new UncheckedIOException("cannot look at " + file + ": " + e.getMessage(), e);
    }
  }

  private static byte[] scaled(BufferedImage image, int width) throws IOException {
    BufferedImage out = image;
    if (width != image.getWidth()) {
      int height = Math.max(1, Math.round((float) image.getHeight() * width / image.getWidth()));
      out = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
      Graphics2D g = out.createGraphics();
      g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BICUBIC);
      g.setRenderingHint(RenderingHints.KEY_RENDERING, RenderingHints.VALUE_RENDER_QUALITY);
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.drawImage(image, 0, 0, width, height, null);
      g.dispose();
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ImageIO.write(out, "png", bytes);
    return bytes.toByteArray();
  }
}
