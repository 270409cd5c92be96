package org.bitopk.job.problem.quadratic;

import java.io.IOException;
import java.io.Serializable;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * How an executor builds the counterexample's x₀ itself, so that no dense model is sent to it: generated from the
 * seed as the driver does, or read from the {@code --x0} file when the executor can read it. A few dozen bytes in
 * every round's task closure, never the point itself.
 */
public sealed interface CounterexampleStart extends Serializable {
  /** x₀ of length {@code dimension}, or empty when this executor cannot build it. */
  Optional<float[]> build(int dimension);

  /** x₀ drawn from {@code seed} by {@link CounterexampleSetting#initialPoint}. */
  record Generated(CounterexampleSetting setting, long seed) implements CounterexampleStart {
    @Override
    public Optional<float[]> build(int dimension) {
      return Optional.of(setting.initialPoint(seed));
    }
  }

  /**
   * x₀ read by {@link InitialPointFile} from {@code uri}, a fully qualified Hadoop FileSystem URI, with the
   * executor's default Hadoop configuration; empty when that fails (a file on the driver's disk only).
   */
  record FromFile(String uri) implements CounterexampleStart {
    @Override
    public Optional<float[]> build(int dimension) {
      Path path = new Path(uri);
      try {
        return Optional.of(InitialPointFile.read(path.getFileSystem(new Configuration()), path, dimension, "--x0"));
      } catch (IOException | RuntimeException e) {
        org.slf4j.LoggerFactory.getLogger(CounterexampleStart.class).warn("--x0 {}: this executor cannot read it ({})",
            uri, e.getMessage());
        return Optional.empty();
      }
    }
  }

  /** Nothing to build from: replicas load the driver's x₀. */
  record Unknown() implements CounterexampleStart {
    @Override
    public Optional<float[]> build(int dimension) {
      return Optional.empty();
    }
  }
}
