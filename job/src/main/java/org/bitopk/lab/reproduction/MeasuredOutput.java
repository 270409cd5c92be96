package org.bitopk.lab.reproduction;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.BadInputException;
import org.bitopk.job.output.MachineEnvironment;
import org.bitopk.job.output.RunDirectory;
import org.jspecify.annotations.Nullable;

/**
 * The output directory of a measuring command (the compressor evaluation, the time-to-accuracy comparison):
 * finished ({@code _SUCCESS}), with its machine and load ({@code environment.json}) and one CSV whose columns are
 * exactly the ones this version reads (or those and the ones a later version of the command added). Anything else is refused with one line naming the flag and the file.
 */
final class MeasuredOutput {
  private final String directory;
  private final CsvTable table;
  private final List<JsonNode> environment;
  private final @Nullable Path picture;

  private MeasuredOutput(String directory, CsvTable table, List<JsonNode> environment, @Nullable Path picture) {
    this.directory = directory;
    this.table = table;
    this.environment = List.copyOf(environment);
    this.picture = picture;
  }

  /** An output already read (tests, or a caller that holds the table in memory). */
  static MeasuredOutput of(String directory, CsvTable table, List<JsonNode> environment, @Nullable Path picture) {
    return new MeasuredOutput(directory, table, environment, picture);
  }

  /**
   * Reads {@code directory}.
   *
   * @param picture the name of a chart it must hold, or null
   * @throws BadInputException one line naming {@code flag} and the directory or file
   */
  static MeasuredOutput read(String flag, String directory, String csvName, List<String> columns,
      @Nullable String picture, Configuration conf) {
    return read(flag, directory, csvName, columns, List.of(), picture, conf);
  }

  /** As the other, also accepting a CSV with any of {@code earlierColumns}, earlier versions' (see {@link CsvTable}). */
  static MeasuredOutput read(String flag, String directory, String csvName, List<String> columns,
      List<List<String>> earlierColumns, @Nullable String picture, Configuration conf) {
    Path dir = new Path(directory);
    try {
      FileSystem fs = dir.getFileSystem(conf);
      if (!fs.exists(dir)) {
        throw new BadInputException(flag + ": " + directory + " does not exist");
      }
      for (String required : new String[] {RunDirectory.SUCCESS, MachineEnvironment.FILE, csvName}) {
        if (!fs.exists(new Path(dir, required))) {
          throw new BadInputException(flag + ": " + new Path(dir, required) + " is missing"
              + (required.equals(RunDirectory.SUCCESS) ? " (the measurement did not finish)" : ""));
        }
      }
      Path pictureFile = picture == null ? null : new Path(dir, picture);
      if (pictureFile != null && !fs.exists(pictureFile)) {
        throw new BadInputException(flag + ": " + pictureFile + " is missing");
      }
      List<JsonNode> environment;
      try {
        environment = MachineEnvironment.readAll(fs, dir);
      } catch (IOException e) {
        throw new BadInputException(flag + ": " + e.getMessage(), e);
      }
      if (environment.isEmpty()) {
        throw new BadInputException(flag + ": " + new Path(dir, MachineEnvironment.FILE) + " holds no entry");
      }
      String text;
      try (InputStream in = fs.open(new Path(dir, csvName))) {
        text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      CsvTable table;
      try {
        table = CsvTable.parse(new Path(dir, csvName).toString(), text).requireHeader(columns, earlierColumns);
      } catch (BadInputException e) {
        throw new BadInputException(flag + ": " + e.getMessage(), e);
      }
      if (table.rows().isEmpty()) {
        throw new BadInputException(flag + ": " + new Path(dir, csvName) + " has no rows");
      }
      return new MeasuredOutput(directory, table, environment, pictureFile);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + directory + ": " + e.getMessage(), e);
    }
  }

  String directory() {
    return directory;
  }

  CsvTable table() {
    return table;
  }

  List<JsonNode> environment() {
    return environment;
  }

  /** The chart the command drew, or null. */
  @Nullable Path picture() {
    return picture;
  }
}
