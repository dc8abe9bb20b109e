package com.acldump;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader for test tables (the JDK has none): objects are LinkedHashMaps, arrays
 * Lists, numbers Long (integers) or Double, and true, false and null themselves.
 */
final class Json {
  private final String text;
  private int at;

  private Json(String text) {
    this.text = text;
  }

  static Object parse(String text) {
    Json json = new Json(text);
    Object value = json.value();
    json.space();
    if (json.at != text.length()) {
      throw json.error("text after the value");
    }
    return value;
  }

  private Object value() {
    space();
    if (at >= text.length()) {
      throw error("a value expected");
    }
    char c = text.charAt(at);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        return word("true", Boolean.TRUE);
      case 'f':
        return word("false", Boolean.FALSE);
      case 'n':
        return word("null", null);
      default:
        return number();
    }
  }

  private Map<String, Object> object() {
    Map<String, Object> object = new LinkedHashMap<>();
    ++at;
    space();
    if (peek('}')) {
      return object;
    }
    do {
      space();
      if (at >= text.length() || text.charAt(at) != '"') {
        throw error("a key expected");
      }
      String key = string();
      space();
      expect(':');
      object.put(key, value());
      space();
    } while (peek(','));
    expect('}');
    return object;
  }

  private List<Object> array() {
    List<Object> array = new ArrayList<>();
    ++at;
    space();
    if (peek(']')) {
      return array;
    }
    do {
      array.add(value());
      space();
    } while (peek(','));
    expect(']');
    return array;
  }

  private String string() {
    StringBuilder out = new StringBuilder();
    ++at;
    while (true) {
      if (at >= text.length()) {
        throw error("an unterminated string");
      }
      char c = text.charAt(at++);
      if (c == '"') {
        return out.toString();
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char escaped = text.charAt(at++);
      switch (escaped) {
        case 'n':
          out.append('\n');
          break;
        case 't':
          out.append('\t');
          break;
        case 'r':
          out.append('\r');
          break;
        case 'b':
          out.append('\b');
          break;
        case 'f':
          out.append('\f');
          break;
        case 'u':
          out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          at += 4;
          break;
        default:
          out.append(escaped); // " \ /
      }
    }
  }

  private Object number() {
    int start = at;
    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
      ++at;
    }
    String number = text.substring(start, at);
    if (number.isEmpty()) {
      throw error("a value expected");
    }
    if (number.matches("-?\\d+")) {
      return Long.parseLong(number);
    }
    return Double.parseDouble(number);
  }

  private Object word(String word, Object value) {
    if (!text.startsWith(word, at)) {
      throw error("'" + word + "' expected");
    }
    at += word.length();
    return value;
  }

  private void space() {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
      ++at;
    }
  }

  private boolean peek(char c) {
    if (at < text.length() && text.charAt(at) == c) {
      ++at;
      return true;
    }
    return false;
  }

  private void expect(char c) {
    if (!peek(c)) {
      throw error("'" + c + "' expected");
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("JSON: " + what + " at offset " + at);
  }
}
