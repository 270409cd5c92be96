package org.bitopk.job.output;

/**
 * Hadoop's checksum side files, {@code .<name>.crc}: judged with the file they belong to, by the readers of a
 * run directory with a manifest and without one alike.
 */
final class SideFiles {
  private SideFiles() {}

  /**
   * True for the name of another entry's checksum side file. It is bitopk's when its file is, or when its file
   * is gone (Hadoop's local file system hides these, and one deleted beside it may stay behind).
   */
  static boolean isSideFile(String name) {
    return name.startsWith(".") && name.endsWith(".crc") && name.length() > ".crc".length() + 1;
  }

  /** The name whose checksum side file {@code side} is. */
  static String fileOf(String side) {
    return side.substring(1, side.length() - ".crc".length());
  }
}
