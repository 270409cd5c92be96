package org.bitopk.job.table;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.bitopk.datasets.NormalizationSpec;
import org.jspecify.annotations.Nullable;

/**
 * What {@link TableData.Builder} was told, as one value: {@link TableBuild} reads the settings from it, so the
 * build step knows the request and not the builder of the data it makes.
 *
 * @param testTable the separate test table; absent: {@code testFraction} of the training rows are held out
 * @param featureSpec see {@link TableLayout}; absent or empty: every column but the label
 * @param inputShape {channels, height, width}; absent: inferred from the feature count
 * @param numClasses the number of classes when known beforehand; absent: max label + 1
 */
record TableRequest(Dataset<Row> train, String trainWhere, @Nullable Dataset<Row> testTable,
    @Nullable String testWhere, double testFraction, String label, @Nullable String featureSpec,
    int @Nullable [] inputShape, NormalizationSpec normalization, int workers, boolean nonIid, long seed,
    @Nullable Integer numClasses, InputNames names) {}
