package org.bitopk.datasets;

import java.util.Random;

/**
 * The CIFAR-10 training augmentation of the reference runs, torchvision's {@code RandomCrop(32, padding=4)}
 * followed by {@code RandomHorizontalFlip()}: the image is padded by {@value #PAD} pixels of black on every
 * side, a window of the original size is cut at a uniformly random offset in {@code [0, 2·PAD]} per axis,
 * and with probability 1/2 mirrored left-right. Because our pixels are already normalised, "black" is each
 * channel's {@link LabeledImages#blackLevel() black level}, which is what torchvision's zero padding becomes
 * after its later normalisation.
 */
final class Augmentation {
  static final int PAD = 4;

  private Augmentation() {}

  /** Draws the crop offsets and flip for one example, then writes the transformed example. */
  static void apply(float[] src, int srcOffset, float[] dst, int dstOffset, int channels, int height, int width,
      float[] blackLevel, Random random) {
    int dy = random.nextInt(2 * PAD + 1);
    int dx = random.nextInt(2 * PAD + 1);
    boolean flip = random.nextBoolean();
    cropFlip(src, srcOffset, dst, dstOffset, channels, height, width, blackLevel, dy, dx, flip);
  }

  /**
   * {@code dst[c][y][x] = padded[c][y + dy][x' + dx]} with {@code x' = flip ? width-1-x : x}, where
   * {@code padded[c][i][j] = src[c][i - PAD][j - PAD]} inside the image and {@code blackLevel[c]} outside.
   */
  static void cropFlip(float[] src, int srcOffset, float[] dst, int dstOffset, int channels, int height,
      int width, float[] blackLevel, int dy, int dx, boolean flip) {
    int plane = height * width;
    for (int c = 0; c < channels; c++) {
      float background = blackLevel[c];
      for (int y = 0; y < height; y++) {
        int sy = y + dy - PAD;
        int rowOut = dstOffset + c * plane + y * width;
        if (sy < 0 || sy >= height) {
          java.util.Arrays.fill(dst, rowOut, rowOut + width, background);
          continue;
        }
        int rowIn = srcOffset + c * plane + sy * width;
        for (int x = 0; x < width; x++) {
          int sx = (flip ? width - 1 - x : x) + dx - PAD;
          dst[rowOut + x] = sx >= 0 && sx < width ? src[rowIn + sx] : background;
        }
      }
    }
  }
}
