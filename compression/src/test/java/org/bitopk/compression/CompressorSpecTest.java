package org.bitopk.compression;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CompressorSpecTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "topk | topk | topk", " TopK  | topk | topk", "topk:strict | topk:strict | topk", " TopK : Strict | topk:strict | topk",
      "gaussiank | gaussiank | gaussiank",
      "sidco-e | sidco-e | sidco-e", "sidco-e:stages=adaptive | sidco-e | sidco-e",
      "sidco-gp:stages=1 | sidco-gp:stages=1 | sidco-gp", "sidco-gamma-gp:stages=3 | sidco-gamma-gp:stages=3 | sidco-gamma-gp",
      "dgc | dgc | dgc", "randomk | randomk | randomk", "none | none | none",
      "randomk:scaled | randomk:scaled | randomk", " RandomK : Scaled | randomk:scaled | randomk", "natural | natural | natural",
      "threshold:tau=0.001 | threshold:tau=0.001 | threshold", "threshold:tau=1e-4 | threshold:tau=1.0E-4 | threshold",
      "threshold:tau=0 | threshold:tau=0.0 | threshold"})
  void parsesToCanonicalText(String text, String canonical, String name) throws Exception {
    CompressorSpec spec = CompressorSpec.parse(text);
    assertEquals(canonical, spec.toString());
    assertEquals(name, spec.name());
    assertEquals(spec, CompressorSpec.parse(spec.toString()));
    assertEquals(spec.hashCode(), CompressorSpec.parse(spec.toString()).hashCode());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(spec);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      assertEquals(spec, in.readObject());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"topk", "randomk", "randomk:scaled", "natural", "threshold:tau=0.5", "none"})
  void createsWorkingCompressors(String text) {
    Compressor c = CompressorSpec.parse(text).create(1);
    assertNotNull(c);
    Selection s = c.select(new float[] {0.1f, 2f, -3f, 0.2f}, 2);
    assertEquals(2, s.targetK());
    assertTrue(s.achievedK() >= 1);
  }

  @ParameterizedTest
  @CsvSource(delimiterString = " => ", value = {
      "topkk => unknown compressor 'topkk'; expected one of: topk (optionally :strict), gaussiank, sidco-e, sidco-gp, sidco-gamma-gp (optionally :stages=1|<M>|adaptive), dgc, randomk, threshold:tau=<float>, none; unbiased: randomk:scaled (d/k times Random-k), natural (random rounding to powers of two, 9 bits per entry)",
      "'' => unknown compressor ''; expected one of: topk (optionally :strict), gaussiank, sidco-e, sidco-gp, sidco-gamma-gp (optionally :stages=1|<M>|adaptive), dgc, randomk, threshold:tau=<float>, none; unbiased: randomk:scaled (d/k times Random-k), natural (random rounding to powers of two, 9 bits per entry)",
      "topk:stages=2 => compressor 'topk:stages=2': unknown option 'stages=2'; expected 'topk' or 'topk:strict'",
      "dgc:strict => compressor 'dgc:strict': 'dgc' takes no options; expected 'dgc'",
      "randomk:strict => compressor 'randomk:strict': unknown option 'strict'; expected 'randomk' or 'randomk:scaled'",
      "topk:scaled => compressor 'topk:scaled': unknown option 'scaled'; expected 'topk' or 'topk:strict'",
      "natural:bits=8 => compressor 'natural:bits=8': 'natural' takes no options; expected 'natural'",
      "sidco-e:stages=0 => compressor 'sidco-e:stages=0': stages = '0' is invalid; expected an integer in [1, 32] or 'adaptive'",
      "sidco-e:stages=x => compressor 'sidco-e:stages=x': stages = 'x' is invalid; expected an integer in [1, 32] or 'adaptive'",
      "sidco-gp:depth=2 => compressor 'sidco-gp:depth=2': unknown option 'depth=2'; expected stages=1|<M>|adaptive",
      "threshold => compressor 'threshold': threshold needs its value; expected threshold:tau=<float>, e.g. threshold:tau=0.001",
      "threshold:tau=-1 => compressor 'threshold:tau=-1': tau = '-1' is invalid; expected a finite number >= 0",
      "threshold:tau=NaN => compressor 'threshold:tau=NaN': tau = 'nan' is invalid; expected a finite number >= 0"})
  void rejectsBadTextNamingTheChoices(String text, String message) {
    assertEquals(message, assertThrows(IllegalArgumentException.class, () -> CompressorSpec.parse(text)).getMessage());
  }
}
