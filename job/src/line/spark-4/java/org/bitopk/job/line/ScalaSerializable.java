package org.bitopk.job.line;

/**
 * What Spark's Scala code checks as {@code Serializable} (e.g. CoalescedRDD's partition coalescer). On the Spark 4
 * line (Scala 2.13) {@code scala.Serializable} is only an alias of {@link java.io.Serializable}, invisible to Java;
 * the Spark 3.5 line's copy of this file (job/src/line/spark-3.5) extends Scala 2.12's trait instead.
 */
public interface ScalaSerializable extends java.io.Serializable {}
