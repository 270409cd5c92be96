package org.bitopk.datasets;

/**
 * A data file does not have the format it claims: wrong magic number, impossible dimensions, too few or too
 * many bytes, a label out of range. The message names the file, the field or byte offset and what was expected,
 * so a user can tell a truncated download from a wrong directory without a debugger.
 *
 * <p>It is an {@link IllegalArgumentException} because a bad file is bad input to the library, and callers
 * that already handle bad arguments handle it too.
 */
public class DatasetFormatException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public DatasetFormatException(String message) {
    super(message);
  }

  public DatasetFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
