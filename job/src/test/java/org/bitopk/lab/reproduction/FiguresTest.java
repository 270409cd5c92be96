package org.bitopk.lab.reproduction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import javax.imageio.ImageIO;
import org.apache.hadoop.conf.Configuration;
import org.bitopk.job.BadInputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Charts are copied at most 800 px wide, and narrower until they fit in 150 KB; the aspect ratio is kept. */
class FiguresTest {
  @TempDir
  Path tmp;

  @ParameterizedTest(name = "{0}x{1}, noise {2}")
  @CsvSource({"2400, 800, false", "600, 200, false", "2400, 800, true"})
  void scaledToTheWidthAndSizeLimits(int width, int height, boolean noise) throws IOException {
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Random random = new Random(1);
    for (int y = 0; y < height; y++) {
      for (int x = 0; x < width; x++) {
        image.setRGB(x, y, noise ? random.nextInt(1 << 24) : (x / 100 % 2 == 0 ? 0xffffff : 0x3366cc));
      }
    }
    Path source = tmp.resolve("in.png");
    ImageIO.write(image, "png", source.toFile());
    Path target = tmp.resolve("out/chart.png");
    Figures.copyScaled(new org.apache.hadoop.fs.Path(source.toUri()), target, new Configuration());
    BufferedImage copied = ImageIO.read(target.toFile());
    assertTrue(Files.size(target) <= Figures.MAX_BYTES, "bytes: " + Files.size(target));
    int expectedWidth = noise ? copied.getWidth() : Math.min(width, Figures.MAX_WIDTH);
    assertEquals(expectedWidth, copied.getWidth());
    assertTrue(copied.getWidth() <= Figures.MAX_WIDTH && copied.getWidth() >= Figures.MIN_WIDTH);
    if (noise) {
      // random pixels do not compress: 800 px wide would be ~640 KB, so it had to get narrower
      assertTrue(copied.getWidth() < Figures.MAX_WIDTH, "width " + copied.getWidth());
    }
    assertEquals((double) height / width, (double) copied.getHeight() / copied.getWidth(), 0.01);
  }

  /** A link or a FIFO under a chart's name is refused, never written through, opened or replaced. */
  @Test
  void aLinkOrAFifoUnderAChartsNameIsRefusedAndLeftAlone() throws Exception {
    BufferedImage image = new BufferedImage(40, 20, BufferedImage.TYPE_INT_RGB);
    Path source = tmp.resolve("in.png");
    ImageIO.write(image, "png", source.toFile());
    Path theirs = Files.writeString(tmp.resolve("their-poster.png"), "not a chart of ours");
    Path linked = Files.createDirectories(tmp.resolve("figures")).resolve("chart.png");
    Files.createSymbolicLink(linked, theirs);
    Path fifo = tmp.resolve("figures/other.png");
    assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor(), "mkfifo");
    for (Path target : new Path[] {linked, fifo}) {
      BadInputException refused = assertThrows(BadInputException.class, () -> assertTimeoutPreemptively(
          Duration.ofSeconds(60), () -> Figures.copyScaled(new org.apache.hadoop.fs.Path(source.toUri()), target,
              new Configuration())));
      assertTrue(refused.getMessage().startsWith("--images: " + target) && refused.getMessage().contains(
          Files.isSymbolicLink(target) ? "a symbolic link" : "a FIFO"), refused.getMessage());
    }
    assertEquals("not a chart of ours", Files.readString(theirs));
    assertTrue(Files.isSymbolicLink(linked), "the link stays");
    assertEquals(java.util.List.of("chart.png", "other.png"), Files.list(tmp.resolve("figures"))
        .map(p -> p.getFileName().toString()).sorted().toList(), "no file beside them");
  }
}
