/**
 * Gradient compression for data-parallel training: selectors behind the one-method {@link
 * org.bitopk.compression.Compressor} interface (exact TopK by radix select, Gaussian-k, SIDCo, DGC sampling,
 * Random-k, fixed threshold, and "none"; the unbiased scaled Random-k and natural compression, which send their own
 * values), {@link org.bitopk.compression.ErrorFeedback} (the residual memory shared
 * by workers and the server), immutable {@link org.bitopk.compression.SparseVector}s and their compact wire format
 * {@link org.bitopk.compression.SparseCodec}.
 *
 * <p>Every selector works on one flattened vector over the whole model (TopK is global, not per layer) and by
 * magnitude |x|. Selection, error feedback and encoding are separate steps so the job can time and log each.
 *
 * <p><b>No Spark, no Kryo here.</b> This module is plain Java so it can be tested and benchmarked in isolation and
 * reused outside Spark. {@link org.bitopk.compression.SparseVector} and {@link
 * org.bitopk.compression.CompressorSpec} implement {@link java.io.Serializable}, which is all Spark needs to ship
 * them; for speed the job module registers both classes with Spark's Kryo in its own registrator (Kryo's field
 * serializer handles their final array fields), so Kryo stays a dependency of the job alone. Bytes that are counted
 * as communication cost are the {@link org.bitopk.compression.SparseCodec} encoding, not Kryo's.
 */
package org.bitopk.compression;
