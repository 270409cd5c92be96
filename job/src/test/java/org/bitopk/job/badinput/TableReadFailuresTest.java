package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.bitopk.job.ExitCode;
import org.bitopk.job.LocalSpark;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Table files that Spark cannot read: one line naming the flag, the file and the reason Spark's "Job aborted …
 * Exception thrown in awaitResult" wraps, exit code 2, and the output directory not created, because a table is
 * read and checked before the output directory is claimed.
 */
@Tag("spark-api")
class TableReadFailuresTest {
  private static final Duration TIMEOUT = Duration.ofMinutes(2);

  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  @TempDir
  static Path tmp;

  static Stream<Arguments> unreadableTables() throws IOException {
    Path emptyParquet = Files.createDirectories(tmp.resolve("empty-parquet"));
    Files.createFile(emptyParquet.resolve("part-0.parquet"));

    Path float16 = tmp.resolve("float16.parquet");
    try (InputStream fixture = TableReadFailuresTest.class.getResourceAsStream("/tables/float16.parquet")) {
      Files.copy(fixture, float16, StandardCopyOption.REPLACE_EXISTING);
    }

    // a CSV edited after Hadoop wrote it: the .crc beside it holds the checksums of the old bytes
    Path staleCrc = Files.createDirectories(tmp.resolve("stale-crc")).resolve("train.csv");
    String rows = csvRows();
    try (OutputStream out = FileSystem.getLocal(new Configuration())
        .create(new org.apache.hadoop.fs.Path(staleCrc.toUri()), true)) {
      out.write(rows.getBytes(StandardCharsets.US_ASCII));
    }
    Files.writeString(staleCrc, rows.replace("1,3,4", "1,9,9"));
    assertTrue(Files.exists(staleCrc.resolveSibling(".train.csv.crc")));

    Path indexZero = Files.writeString(tmp.resolve("index-zero.libsvm"), "0 0:1 1:2\n1 1:3 2:4\n0 1:1\n1 2:2\n");

    // a good part written by Spark beside one that is not Parquet: the schema comes from the good one, the other
    // is met when the executors decode the rows
    Path mixed = tmp.resolve("mixed-parquet");
    StructType schema = new StructType().add("label", DataTypes.IntegerType).add("a", DataTypes.DoubleType)
        .add("b", DataTypes.DoubleType);
    List<Row> good = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      good.add(RowFactory.create(i % 2, (double) i, (double) -i));
    }
    SparkSession.builder().sparkContext(SPARK.context().sc()).getOrCreate().createDataFrame(good, schema)
        .coalesce(1).write().parquet(mixed.toString());
    Files.writeString(mixed.resolve("part-99999-foreign.parquet"), "label,a,b\n0,1,2\n");

    return Stream.of(
        Arguments.of("0-byte Parquet file", "parquet:" + emptyParquet, List.of("--data: cannot read parquet "
            + emptyParquet + ": ", emptyParquet.resolve("part-0.parquet") + " is not a Parquet file (length is too "
            + "low: 0)")),
        Arguments.of("float16 Parquet column", "parquet:" + float16, List.of("--data: cannot read parquet " + float16,
            float16 + ": a column has a Parquet logical type that Spark " + org.apache.spark.package$.MODULE$
                .SPARK_VERSION() + " cannot read, such as float16 (halffloat); write it as float32")),
        Arguments.of("stale .crc", "csv:" + staleCrc, List.of("--data: cannot read csv " + staleCrc + ": ",
            "Checksum error: ", staleCrc.toString(), "Hadoop's checksum file .train.csv.crc beside it does not "
                + "match the file")),
        Arguments.of("libsvm index 0", "libsvm:" + indexZero, List.of("--data: cannot read libsvm " + indexZero
            + ": ", "indices should be one-based and in ascending order", "line=\"0 0:1 1:2\"")),
        Arguments.of("a foreign part among good ones", "parquet:" + mixed, List.of("--data: cannot read parquet "
            + mixed + ": ", "part-99999-foreign.parquet is not a Parquet file")));
  }

  private static String csvRows() {
    return "label,a,b\n0,1,2\n1,3,4\n0,1,2\n1,3,4\n0,1,2\n1,3,4\n0,1,2\n1,3,4\n";
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("unreadableTables")
  void aFileSparkCannotReadIsOneLineWithItsCause(String name, String data, List<String> named) {
    Path out = tmp.resolve("run-" + name.replaceAll("[^A-Za-z0-9]+", "-"));
    Cli.run(SPARK.context(), "--data", data, "--workers", "2", "--batch-size", "1", "--max-iterations", "1",
        "--model", "mlp-small", "--quiet", "--output", out.toString())
        .failsWithOneLine(ExitCode.BAD_INPUT, named.toArray(String[]::new));
    assertFalse(Files.exists(out), name + ": the output directory is not created");
  }

  /**
   * A file the job may not read, in the job's own JVM (whose log would go into the output directory's logs/):
   * nothing is left behind, not even logs/. Root reads any file; its JVM is started without the capabilities
   * that let it (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), so that a mode of 000 holds for it too.
   */
  @Test
  void anUnreadableFileLeavesNoOutputDirectory() throws Exception {
    Path file = Files.writeString(tmp.resolve("unreadable.csv"), csvRows());
    Files.setPosixFilePermissions(file, java.util.Set.of());
    List<String> launcher = List.of();
    if ("root".equals(System.getProperty("user.name"))) {
      assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "running as root without setpriv (util-linux) "
          + "to drop the capabilities that let root read a file of mode 000");
      launcher = List.of("/usr/bin/setpriv", "--bounding-set=-dac_override,-dac_read_search",
          "--inh-caps=-dac_override,-dac_read_search");
    }
    Path out = tmp.resolve("unreadable-run");
    JobProcess.Finished job = JobProcess.start(tmp.resolve("streams"), launcher, List.of(), List.of("--data",
        "csv:" + file, "--workers", "2", "--batch-size", "1", "--max-iterations", "1", "--model", "mlp-small",
        "--master", "local[2]", "--quiet", "--output", out.toString())).await(TIMEOUT);
    OneLineFailuresTest.assertOneLine(job, ExitCode.BAD_INPUT, "bitopk: --data: cannot read csv " + file + ": ",
        file + " (Permission denied)");
    assertEquals(List.of(), job.errLines().stream().filter(l -> !l.startsWith("bitopk: ")).toList());
    assertFalse(Files.exists(out), "the output directory is not created, not even its logs/");
  }
}
