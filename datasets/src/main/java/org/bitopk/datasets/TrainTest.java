package org.bitopk.datasets;

import java.io.Serializable;

/** A data set's training and test parts, with the same image shape and classes. */
public final class TrainTest implements Serializable {
  private static final long serialVersionUID = 1L;

  private final LabeledImages train;
  private final LabeledImages test;

  private TrainTest(LabeledImages train, LabeledImages test) {
    this.train = train;
    this.test = test;
  }

  /** @throws IllegalArgumentException when the parts differ in shape or number of classes */
  public static TrainTest of(LabeledImages train, LabeledImages test) {
    if (train == null || test == null) {
      throw new IllegalArgumentException("train and test must not be null");
    }
    if (train.channels() != test.channels() || train.height() != test.height() || train.width() != test.width()
        || train.numClasses() != test.numClasses()) {
      throw new IllegalArgumentException("train " + train + " and test " + test
          + " differ in image shape or number of classes");
    }
    return new TrainTest(train, test);
  }

  public LabeledImages train() {
    return train;
  }

  public LabeledImages test() {
    return test;
  }

  @Override
  public String toString() {
    return "TrainTest{train=" + train + ", test=" + test + "}";
  }
}
