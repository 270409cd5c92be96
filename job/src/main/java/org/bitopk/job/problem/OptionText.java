package org.bitopk.job.problem;

import java.util.LinkedHashMap;
import java.util.Map;

/** The options of a generated problem's {@code --dataset} text: {@code name:key=value,key=value,...}. */
public final class OptionText {
  private OptionText() {}

  /**
   * The key=value pairs after {@code name:}, in order (none for the bare name).
   *
   * @param keys the accepted keys, for messages (e.g. {@code "d, overlap, noise"})
   * @throws IllegalArgumentException naming the text and the item that is not key=value or a key given twice
   */
  public static Map<String, String> pairs(String text, String name, String keys) {
    String trimmed = text.trim();
    Map<String, String> out = new LinkedHashMap<>();
    if (trimmed.equals(name)) {
      return out;
    }
    for (String item : trimmed.substring(name.length() + 1).split(",", -1)) {
      int eq = item.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("'" + text + "': '" + item + "' is not key=value (keys: " + keys + ")");
      }
      String key = item.substring(0, eq).trim();
      if (out.put(key, item.substring(eq + 1).trim()) != null) {
        throw new IllegalArgumentException("'" + text + "': key '" + key + "' is given twice");
      }
    }
    return out;
  }

  /** The error for a key the setting does not know, naming the text and the accepted {@code keys}. */
  public static IllegalArgumentException unknownKey(String text, String key, String keys) {
    return new IllegalArgumentException("'" + text + "': unknown key '" + key + "'; expected one of " + keys);
  }

  /** The error for a value that is not a number, naming the text, the value and its key. */
  public static IllegalArgumentException notANumber(String text, String key, String value, NumberFormatException e) {
    return new IllegalArgumentException("'" + text + "': value '" + value + "' of key '" + key
        + "' is not a number", e);
  }

  /** A setting's own refusal of the parsed values, prefixed with the text it was parsed from. */
  public static IllegalArgumentException inText(String text, IllegalArgumentException e) {
    return new IllegalArgumentException("'" + text + "': " + e.getMessage(), e);
  }
}
