package org.bitopk.job.problem;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** The model file of the problems without a network: {@code model.json}, one JSON object. */
public final class ModelJson {
  public static final String NAME = "model.json";

  private ModelJson() {}

  /** Writes {@code model} as {@code model.json} into the run directory; returns the file name. */
  public static String write(Map<String, Object> model, FileSystem fs, Path runDirectory) throws IOException {
    try (OutputStream out = fs.create(new Path(runDirectory, NAME), true)) {
      new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(out, model);
    }
    return NAME;
  }
}
