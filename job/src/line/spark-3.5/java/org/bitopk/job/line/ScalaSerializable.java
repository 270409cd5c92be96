package org.bitopk.job.line;

/**
 * What Spark's Scala code checks as {@code Serializable} (e.g. CoalescedRDD's partition coalescer). On the Spark 3.5
 * line (Scala 2.12) that is the trait {@code scala.Serializable}, which {@link java.io.Serializable} alone does not
 * satisfy; the Spark 4 line's copy of this file (job/src/line/spark-4) extends java.io.Serializable.
 */
public interface ScalaSerializable extends scala.Serializable {}
