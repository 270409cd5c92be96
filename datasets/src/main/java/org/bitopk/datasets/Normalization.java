package org.bitopk.datasets;

import java.io.Serializable;
import java.util.Arrays;

/**
 * Maps raw 8-bit pixels to network inputs exactly as the reference runs' torchvision pipeline does:
 * {@code ToTensor()} (scale to [0, 1] by dividing by 255) then {@code Normalize(mean, std)} per channel.
 *
 * <p>The constants, and where they come from:
 * <ul>
 *   <li>{@link #MNIST}: 0.1307 / 0.3081, the values of the PyTorch MNIST example, the mean and standard
 *       deviation of all training pixels.</li>
 *   <li>{@link #FASHION_MNIST}: 0.2860 / 0.3530, the mean and (population) standard deviation of all 47
 *       million training pixels of Fashion-MNIST (0.286041 / 0.353024 when recomputed; the tests recompute
 *       them from the real files).</li>
 *   <li>{@link #CIFAR10}: mean (0.4914, 0.4822, 0.4465), std (0.2470, 0.2435, 0.2616), the per-channel
 *       mean and standard deviation of the 50,000 training images. The other widely copied std,
 *       (0.2023, 0.1994, 0.2010), is not the pixel standard deviation (it comes from averaging per-image
 *       statistics); we use the true one so inputs have unit variance per channel.</li>
 * </ul>
 *
 * <p>Conversion goes through a 256-entry table per channel, so parsing a data set is one table lookup per
 * byte.
 */
public final class Normalization implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Normalization MNIST = of(new float[] {0.1307f}, new float[] {0.3081f});
  public static final Normalization FASHION_MNIST = of(new float[] {0.2860f}, new float[] {0.3530f});
  public static final Normalization CIFAR10 =
      of(new float[] {0.4914f, 0.4822f, 0.4465f}, new float[] {0.2470f, 0.2435f, 0.2616f});

  private final float[] mean;
  private final float[] std;
  private final float[][] tables;

  private Normalization(float[] mean, float[] std) {
    this.mean = mean;
    this.std = std;
    this.tables = new float[mean.length][256];
    for (int c = 0; c < mean.length; c++) {
      for (int v = 0; v < 256; v++) {
        tables[c][v] = (v / 255f - mean[c]) / std[c];
        if (!Float.isFinite(tables[c][v])) {
          throw new IllegalArgumentException("channel " + c + ": mean=" + mean[c] + " std=" + std[c]
              + " maps pixel " + v + " to " + tables[c][v] + "; expected a finite value");
        }
      }
    }
  }

  /**
   * Per-channel mean and standard deviation, in units of the [0, 1]-scaled pixel.
   *
   * @throws IllegalArgumentException if the lengths differ or are zero, or a value is not finite or a std
   *     is not positive
   */
  public static Normalization of(float[] mean, float[] std) {
    if (mean == null || std == null || mean.length == 0 || mean.length != std.length) {
      throw new IllegalArgumentException("mean and std need one value per channel, got mean="
          + Arrays.toString(mean) + " std=" + Arrays.toString(std));
    }
    for (int c = 0; c < mean.length; c++) {
      if (!Float.isFinite(mean[c]) || !Float.isFinite(std[c]) || std[c] <= 0f) {
        throw new IllegalArgumentException("channel " + c + ": mean=" + mean[c] + " std=" + std[c]
            + "; expected finite values and std > 0");
      }
    }
    return new Normalization(mean.clone(), std.clone());
  }

  public int channels() {
    return mean.length;
  }

  public float[] mean() {
    return mean.clone();
  }

  public float[] std() {
    return std.clone();
  }

  /** The normalised value of a raw 8-bit pixel of the given channel. */
  public float apply(int channel, int rawPixel) {
    return tables[channel][rawPixel & 0xff];
  }

  /** Per channel, the normalised value of a black (0) pixel: what torchvision's zero padding becomes. */
  public float[] blackLevel() {
    float[] level = new float[mean.length];
    for (int c = 0; c < level.length; c++) {
      level[c] = tables[c][0];
    }
    return level;
  }

  /**
   * Converts one channel-planar example: {@code channels()} consecutive planes of {@code planeSize} bytes
   * starting at {@code src[srcOffset]} into floats at {@code dst[dstOffset]}. With one channel a whole
   * data set is one "plane", converted in one call.
   */
  void convert(byte[] src, int srcOffset, float[] dst, int dstOffset, int planeSize) {
    for (int c = 0; c < tables.length; c++) {
      float[] table = tables[c];
      int s = srcOffset + c * planeSize;
      int d = dstOffset + c * planeSize;
      for (int i = 0; i < planeSize; i++) {
        dst[d + i] = table[src[s + i] & 0xff];
      }
    }
  }

  @Override
  public String toString() {
    return "Normalization{mean=" + Arrays.toString(mean) + ", std=" + Arrays.toString(std) + "}";
  }
}
