package org.bitopk.lab.baseline;

import java.io.PrintWriter;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.datasets.TrainTest;

/** One way of training the shared model and data, measured the same way as the others. */
interface ComparedSystem {
  /** The name in the table and on the command line. */
  String name();

  /**
   * Trains from the shared initial parameters until {@link ComparisonSettings#maxSeconds()} or {@link
   * ComparisonSettings#epochs()}, evaluating every {@link ComparisonSettings#evalEvery()} rounds.
   */
  SystemResult run(Context context) throws Exception;

  /**
   * What a system may use: Spark, the data already read, a directory to write in, the console, the label of
   * this run (its name, or its name at a link rate), which names what it writes there, and the fault the run is put
   * through, which it tells the rounds it completes.
   */
  record Context(JavaSparkContext sc, ComparisonSettings settings, TrainTest data, Path directory,
      PrintWriter console, String label, RunFault fault) {
    /** A run without a fault. */
    Context(JavaSparkContext sc, ComparisonSettings settings, TrainTest data, Path directory, PrintWriter console,
        String label) {
      this(sc, settings, data, directory, console, label, RunFault.NONE);
    }
  }
}
