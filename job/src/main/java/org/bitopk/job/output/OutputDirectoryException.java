package org.bitopk.job.output;

/**
 * The output directory cannot be used as asked: it holds a finished or an unfinished run, is not a run, is in
 * use by another run, or cannot be written. Found before anything is written into it; the message names the
 * directory and what to do instead. Bad input, like a wrong flag: an {@link IllegalArgumentException}.
 */
public class OutputDirectoryException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public OutputDirectoryException(String message) {
    super(message);
  }

  public OutputDirectoryException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The same refusal naming {@code flag} where it names {@code --output} (a resume names its directory so). */
  public static OutputDirectoryException namingFlag(OutputDirectoryException e, String flag) {
    String message = e.getMessage();
    return message.startsWith("--output ")
        ? new OutputDirectoryException(flag + message.substring("--output".length()), e) : e;
  }
}
