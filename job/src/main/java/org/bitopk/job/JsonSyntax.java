package org.bitopk.job;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;

/**
 * Jackson's complaint about text that is not JSON, as part of one message line: its first line without the
 * "[Source: …]" dump, with any byte that is not printable ASCII shown as '?' (a binary file's bytes would
 * otherwise reach the terminal), cut to a readable length, and where in the text it was.
 */
public final class JsonSyntax {
  private static final int LONGEST = 120;

  private JsonSyntax() {}

  /** For example {@code Unexpected character ('}' (code 125)): was expecting double-quote … (line 1, column 15)}. */
  public static String describe(JsonProcessingException e) {
    String message = e.getOriginalMessage() == null ? "not JSON" : e.getOriginalMessage();
    String first = message.lines().findFirst().orElse("").trim().replaceAll("[^\\x20-\\x7E]", "?");
    if (first.length() > LONGEST) {
      first = first.substring(0, LONGEST) + "...";
    }
    JsonLocation at = e.getLocation();
    return at == null ? first : first + " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
  }
}
