package org.bitopk.job.run;

import java.util.Optional;
import org.bitopk.datasets.TrainTest;
import org.bitopk.job.table.TableData;

/**
 * What a prepared run trains on, by kind: a problem generated on the workers, data set files read on the driver,
 * or a table the executors read once Spark runs (before and after reading it).
 */
sealed interface RunInput {

  /**
   * The counterexample's quadratics or the synthetic gradients: no examples; the counterexample's x₀ when
   * {@code --x0} gave one (else it is generated from the seed).
   */
  record Generated(Optional<float[]> start) implements RunInput {}

  /** A data set's image files, read and checked on the driver. */
  record Files(TrainTest data) implements RunInput {}

  /**
   * A table not read yet; its loader is absent for a DataFrame until Spark ML's fit hands it over
   * ({@link PreparedRun#withTableLoader}).
   */
  record UnreadTable(Optional<TableLoader> loader) implements RunInput {}

  /** A table read and split by the executors, its cache and broadcasts held until the run ends. */
  record ReadTable(TableData table) implements RunInput {}
}
