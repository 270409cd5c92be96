package org.bitopk.job.problem.quadratic;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A starting point x₀ read from a file, so that another implementation (a numpy reference) can start from the
 * very same floats. Two formats:
 *
 * <ul>
 *   <li>{@code .npy} (by its magic bytes, whatever the name): NumPy's format, versions 1.0–3.0, a 1-D array of
 *       {@code <f4} (float32, taken as is) or {@code <f8} (float64, each value rounded to the nearest float32).
 *       Read here directly: the format is a magic string, a header length and a Python dict literal with
 *       {@code descr}, {@code fortran_order} and {@code shape}, followed by the raw values; the Java readers of it
 *       in Maven Central pull in a Kotlin runtime for these few lines.
 *   <li>text (anything else), UTF-8: numbers separated by whitespace (one per line or several on a line); a
 *       {@code #} starts a comment to the end of the line ({@code numpy.savetxt} headers). Each number is parsed
 *       with {@link Float#parseFloat} (correctly rounded to float32), so {@code numpy.savetxt(f, x32)} with its
 *       default {@code %.18e} reproduces x32 exactly.
 * </ul>
 *
 * <p>Non-finite values and a length other than d are refused with one line naming the file.
 */
public final class InitialPointFile {
  private static final byte[] NPY_MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
  private static final Pattern DESCR = Pattern.compile("'descr'\\s*:\\s*'([^']*)'");
  private static final Pattern FORTRAN = Pattern.compile("'fortran_order'\\s*:\\s*(True|False)");
  private static final Pattern SHAPE = Pattern.compile("'shape'\\s*:\\s*\\(([^)]*)\\)");

  private InitialPointFile() {}

  /**
   * Reads x₀ of length {@code dimension}.
   *
   * @param flag the flag that named the file, for messages (e.g. {@code --x0})
   * @throws IllegalArgumentException starting with {@code flag file:}, saying what is wrong and what was expected
   */
  public static float[] read(FileSystem fs, Path file, int dimension, String flag) {
    byte[] bytes;
    try (InputStream in = fs.open(file)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      bytes = out.toByteArray();
    } catch (IOException e) {
      throw new IllegalArgumentException(flag + " " + file + ": cannot read it: " + e.getMessage(), e);
    }
    String where = flag + " " + file + ": ";
    float[] x = isNpy(bytes) ? npy(bytes, where) : text(bytes, where);
    if (x.length != dimension) {
      throw new IllegalArgumentException(where + "holds " + x.length + " values, expected d = " + dimension
          + " (the counterexample's dimension)");
    }
    return x;
  }

  static boolean isNpy(byte[] bytes) {
    if (bytes.length < NPY_MAGIC.length) {
      return false;
    }
    for (int i = 0; i < NPY_MAGIC.length; i++) {
      if (bytes[i] != NPY_MAGIC[i]) {
        return false;
      }
    }
    return true;
  }

  private static float[] npy(byte[] bytes, String where) {
    if (bytes.length < 10) {
      throw new IllegalArgumentException(where + "truncated .npy header");
    }
    int major = bytes[6] & 0xff;
    ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    long headerLength;
    int headerStart;
    if (major == 1) {
      headerLength = buffer.getShort(8) & 0xffff;
      headerStart = 10;
    } else if (major == 2 || major == 3) {
      if (bytes.length < 12) {
        throw new IllegalArgumentException(where + "truncated .npy header");
      }
      headerLength = buffer.getInt(8) & 0xffffffffL;
      headerStart = 12;
    } else {
      throw new IllegalArgumentException(where + ".npy version " + major + "." + (bytes[7] & 0xff)
          + " is not supported; expected 1.0, 2.0 or 3.0");
    }
    if (headerStart + headerLength > bytes.length) {
      throw new IllegalArgumentException(where + "truncated .npy header (" + headerLength + " bytes announced)");
    }
    String header = new String(bytes, headerStart, (int) headerLength,
        major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
    Matcher descr = DESCR.matcher(header);
    Matcher shape = SHAPE.matcher(header);
    Matcher fortran = FORTRAN.matcher(header);
    if (!descr.find() || !shape.find() || !fortran.find()) {
      throw new IllegalArgumentException(where + ".npy header '" + header.strip() + "' lacks descr, fortran_order "
          + "or shape");
    }
    String type = descr.group(1);
    int width;
    if (type.equals("<f4")) {
      width = 4;
    } else if (type.equals("<f8")) {
      width = 8;
    } else {
      throw new IllegalArgumentException(where + ".npy dtype '" + type + "' is not supported; expected '<f4' "
          + "(float32) or '<f8' (float64), little-endian");
    }
    String[] dims = shape.group(1).split(",");
    long count = -1;
    int rank = 0;
    for (String dim : dims) {
      if (dim.isBlank()) {
        continue;
      }
      rank++;
      try {
        count = Long.parseLong(dim.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(where + ".npy shape (" + shape.group(1) + ") is not a shape", e);
      }
    }
    if (rank != 1) {
      throw new IllegalArgumentException(where + ".npy array of shape (" + shape.group(1).strip() + "); expected a "
          + "1-D array (n,)");
    }
    long dataStart = headerStart + headerLength;
    if (bytes.length - dataStart != count * width) {
      throw new IllegalArgumentException(where + ".npy data has " + (bytes.length - dataStart) + " bytes, expected "
          + count + " values of " + width + " bytes");
    }
    float[] x = new float[(int) count];
    for (int i = 0; i < x.length; i++) {
      int at = (int) (dataStart + (long) i * width);
      x[i] = width == 4 ? buffer.getFloat(at) : (float) buffer.getDouble(at);
      if (!Float.isFinite(x[i])) {
        throw new IllegalArgumentException(where + "value " + i + " is " + x[i] + "; expected finite values");
      }
    }
    return x;
  }

  private static float[] text(byte[] bytes, String where) {
    String content = new String(bytes, StandardCharsets.UTF_8);
    float[] x = new float[16];
    int n = 0;
    String[] lines = content.split("\r?\n|\r", -1);
    for (int line = 0; line < lines.length; line++) {
      String text = lines[line];
      int hash = text.indexOf('#');
      if (hash >= 0) {
        text = text.substring(0, hash);
      }
      for (String token : text.trim().split("\\s+")) {
        if (token.isEmpty()) {
          continue;
        }
        float v;
        try {
          v = Float.parseFloat(token);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(where + "line " + (line + 1) + ": '" + token + "' is not a number "
              + "(expected numbers separated by whitespace, or a .npy file)", e);
        }
        if (!Float.isFinite(v)) {
          throw new IllegalArgumentException(where + "line " + (line + 1) + ": '" + token + "' is not a finite "
              + "float32");
        }
        if (n == x.length) {
          x = java.util.Arrays.copyOf(x, x.length * 2);
        }
        x[n++] = v;
      }
    }
    return java.util.Arrays.copyOf(x, n);
  }
}
