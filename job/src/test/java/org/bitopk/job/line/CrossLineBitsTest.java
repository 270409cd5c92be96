package org.bitopk.job.line;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.bitopk.cli.Main;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.engine.DriverState;
import org.bitopk.job.engine.IterationRecord;
import org.bitopk.job.engine.RunListener;
import org.bitopk.job.run.TrainingRun;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same bits on both Spark lines (the arithmetic is the job's and ND4J's, not Spark's). Each line trains the
 * Fashion-MNIST MLP with the same flags and seed twice, once uninterrupted and once crashed after a checkpoint, and
 * keeps both runs in {@code bitopk.crossLine.dir}/&lt;Scala version&gt; (outside the line's build directory). Finding
 * the other line's runs there, it checks that its own model's {@code coefficients.bin} is the other line's byte for
 * byte, and resumes a copy of the other line's crashed run on this line: it ends with the same coefficients.bin as
 * the uninterrupted runs. CI runs the default line first, the Spark 3.5 line after it (a Spark 4 checkpoint resumed on
 * Spark 3.5) and this class once more on the default line (a Spark 3.5 checkpoint resumed on Spark 4), the last two
 * with {@value #EXPECT_OTHER} set, under which a missing other line fails instead of skipping.
 */
@Tag("spark-api")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CrossLineBitsTest {
  static final int ROUNDS = 24;
  static final int CHECKPOINT_EVERY = 8;
  static final int CRASH_AFTER = 20;
  /** System property: true when the other line's runs must be there (CI's second and third runs of this class). */
  static final String EXPECT_OTHER = "bitopk.crossLine.expectOther";

  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  static final String SCALA = scala.util.Properties.versionNumberString().replaceAll("^(\\d+\\.\\d+).*", "$1");
  static final String SPARK_VERSION = org.apache.spark.package$.MODULE$.SPARK_VERSION();

  Path lines;
  Path own;

  @BeforeAll
  void trainOnThisLine() throws IOException {
    lines = Path.of(System.getProperty("bitopk.crossLine.dir", "target/cross-line")).toAbsolutePath();
    own = lines.resolve(SCALA);
    deleteTree(own);
    Files.createDirectories(own);
    TrainingRun.execute(SPARK.context(), config(own.resolve("uninterrupted")), false, List.of());
    RunListener crash = new RunListener() {
      @Override
      public void onIteration(IterationRecord record, DriverState state) {
        if (state.iteration() == CRASH_AFTER) {
          throw new IllegalStateException("simulated driver crash");
        }
      }
    };
    assertThrows(IllegalStateException.class,
        () -> TrainingRun.execute(SPARK.context(), config(own.resolve("crashed")), false, List.of(crash)));
    Files.writeString(own.resolve("spark-version.txt"), SPARK_VERSION + "\n");
  }

  /** The same flags and seed on every line. */
  static TrainingConfig config(Path output) {
    return TrainingConfig.builder().mode(Mode.BIDIRECTIONAL).workers(2).uplink(CompressorSpec.parse("topk"))
        .downlink(CompressorSpec.parse("topk")).densityUp(0.01).densityDown(0.01).learningRate(0.1).batchSize(32)
        .maxIterations(ROUNDS).checkpointEvery(CHECKPOINT_EVERY).seed(7).quiet(true)
        .output(output.toUri().toString()).build();
  }

  /** The other line's runs, or the test is skipped (fails under {@value #EXPECT_OTHER}): that line has not run yet. */
  Path otherLine() throws IOException {
    try (Stream<Path> dirs = Files.list(lines)) {
      List<Path> others = dirs.filter(d -> !d.equals(own) && Files.exists(d.resolve("spark-version.txt"))).toList();
      String none = "no other Spark line has run into " + lines + " yet";
      assertFalse(others.isEmpty() && Boolean.getBoolean(EXPECT_OTHER), none + " (" + EXPECT_OTHER + " is set)");
      Assumptions.assumeFalse(others.isEmpty(), none);
      return others.get(0);
    }
  }

  @Test
  void theSameFlagsAndSeedGiveTheSameCoefficientsOnBothLines() throws IOException {
    Path other = otherLine();
    assertArrayEquals(coefficients(other.resolve("uninterrupted")), coefficients(own.resolve("uninterrupted")),
        "Spark " + Files.readString(other.resolve("spark-version.txt")).trim() + " and Spark " + SPARK_VERSION
            + " trained different models");
  }

  @Test
  void aCheckpointOfTheOtherLineResumesHereToTheUninterruptedRunsBits(@TempDir Path tmp) throws IOException {
    Path other = otherLine();
    Path crashed = tmp.resolve("crashed");
    copyTree(other.resolve("crashed"), crashed);
    assertTrue(Files.exists(crashed.resolve("checkpoints/checkpoint-0000000016.bin")), "the other line's checkpoint");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(new String[] {"--resume", crashed.toString(), "--quiet"}, SPARK.context(),
        new PrintWriter(out, true), new PrintWriter(err, true));
    assertEquals(0, code, err.toString());
    assertArrayEquals(coefficients(own.resolve("uninterrupted")), coefficients(crashed),
        "resumed from Spark " + Files.readString(other.resolve("spark-version.txt")).trim() + "'s checkpoint");
    assertArrayEquals(coefficients(other.resolve("uninterrupted")), coefficients(crashed));
  }

  /** The model's parameters as DL4J writes them: coefficients.bin inside model.zip. */
  static byte[] coefficients(Path run) throws IOException {
    try (ZipFile zip = new ZipFile(run.resolve("model.zip").toFile());
        InputStream in = zip.getInputStream(zip.getEntry("coefficients.bin"))) {
      return in.readAllBytes();
    }
  }

  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path file : files.toList()) {
        Path target = to.resolve(from.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(target);
        } else {
          Files.copy(file, target);
        }
      }
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(file);
        }
      }
    }
  }
}
