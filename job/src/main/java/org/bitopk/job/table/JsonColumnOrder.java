package org.bitopk.job.table;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * A JSON(-lines) table's columns in the file's order. Spark's JSON source infers a schema whose columns are sorted
 * by name ({@code 10x1} before {@code 9x9}), which would feed an image's pixels in the wrong order without a word;
 * the file's own order is that of the first record's keys (every feature is present in every row, a null one is
 * refused), and columns the first record lacks follow in Spark's order.
 */
public final class JsonColumnOrder {
  private JsonColumnOrder() {}

  /** {@code table} (read by Spark's JSON source) with its columns in the order of its first file's first record. */
  public static Dataset<Row> inFileOrder(Dataset<Row> table, Configuration conf) throws IOException {
    String[] files = table.inputFiles();
    if (files.length == 0) {
      return table;
    }
    java.util.Arrays.sort(files);
    Set<String> order = new LinkedHashSet<>(firstRecordKeys(new Path(files[0]), conf));
    List<String> schema = List.of(table.columns());
    order.retainAll(schema);
    order.addAll(schema);
    List<Column> columns = new ArrayList<>();
    for (String name : order) {
      columns.add(table.col("`" + name.replace("`", "``") + "`"));
    }
    return table.select(columns.toArray(Column[]::new));
  }

  private static List<String> firstRecordKeys(Path file, Configuration conf) throws IOException {
    FileSystem fs = file.getFileSystem(conf);
    CompressionCodec codec = new CompressionCodecFactory(conf).getCodec(file);
    List<String> keys = new ArrayList<>();
    try (InputStream raw = fs.open(file);
         InputStream in = codec == null ? raw : codec.createInputStream(raw);
         JsonParser parser = new JsonFactory().createParser(in)) {
      JsonToken token = parser.nextToken();
      while (token == JsonToken.START_ARRAY) {   // a file holding an array of records
        token = parser.nextToken();
      }
      if (token != JsonToken.START_OBJECT) {
        return keys;
      }
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        keys.add(parser.currentName());
        parser.nextToken();
        parser.skipChildren();
      }
    }
    return keys;
  }
}
