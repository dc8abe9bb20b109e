package com.acldump.examples.service;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON the service needs, with no library: {@link #parse} reads a document into maps,
 * lists, strings, booleans, null and {@link Number}s (kept as their text, so that a float read
 * back is the float written); {@link #quote} and {@link #number} write.
 */
final class Json {
  private Json() {}

  /** A JSON number, as its text. */
  record Number(String text) {
    float floatValue() {
      return Float.parseFloat(text);
    }

    long longValue() {
      return Long.parseLong(text);
    }
  }

  /** Malformed JSON, with where. */
  static final class SyntaxException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    SyntaxException(String message, int at) {
      super(message + " at offset " + at);
    }
  }

  /** The value of the document {@code text}. */
  static Object parse(String text) {
    Parser parser = new Parser(text);
    Object value = parser.value();
    parser.skipSpace();
    if (parser.at < text.length()) {
      throw new SyntaxException("text after the value", parser.at);
    }
    return value;
  }

  /** A string as a JSON string. */
  static String quote(String text) {
    StringBuilder out = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); ++i) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  /** A finite float as a JSON number that reads back as the same float. */
  static String number(float value) {
    if (!Float.isFinite(value)) {
      throw new IllegalArgumentException(value + " has no JSON number");
    }
    return Float.toString(value);
  }

  private static final class Parser {
    private final String text;
    private int at;

    Parser(String text) {
      this.text = text;
    }

    void skipSpace() {
      while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
        ++at;
      }
    }

    Object value() {
      skipSpace();
      if (at >= text.length()) {
        throw new SyntaxException("a value is missing", at);
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
          return literal("true", Boolean.TRUE);
        case 'f':
          return literal("false", Boolean.FALSE);
        case 'n':
          return literal("null", null);
        default:
          if (c == '-' || (c >= '0' && c <= '9')) {
            return number();
          }
          throw new SyntaxException("unexpected '" + c + "'", at);
      }
    }

    private Object literal(String word, Object value) {
      if (!text.startsWith(word, at)) {
        throw new SyntaxException("unexpected text", at);
      }
      at += word.length();
      return value;
    }

    private Map<String, Object> object() {
      Map<String, Object> members = new LinkedHashMap<>();
      ++at;
      skipSpace();
      if (at < text.length() && text.charAt(at) == '}') {
        ++at;
        return members;
      }
      while (true) {
        skipSpace();
        if (at >= text.length() || text.charAt(at) != '"') {
          throw new SyntaxException("a member name is missing", at);
        }
        String name = string();
        skipSpace();
        expect(':');
        members.put(name, value());
        skipSpace();
        if (at < text.length() && text.charAt(at) == ',') {
          ++at;
          continue;
        }
        expect('}');
        return members;
      }
    }

    private List<Object> array() {
      List<Object> elements = new ArrayList<>();
      ++at;
      skipSpace();
      if (at < text.length() && text.charAt(at) == ']') {
        ++at;
        return elements;
      }
      while (true) {
        elements.add(value());
        skipSpace();
        if (at < text.length() && text.charAt(at) == ',') {
          ++at;
          continue;
        }
        expect(']');
        return elements;
      }
    }

    private void expect(char c) {
      if (at >= text.length() || text.charAt(at) != c) {
        throw new SyntaxException("'" + c + "' is missing", at);
      }
      ++at;
    }

    private String string() {
      StringBuilder out = new StringBuilder();
      ++at;
      while (at < text.length()) {
        char c = text.charAt(at++);
        if (c == '"') {
          return out.toString();
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (at >= text.length()) {
          break;
        }
        char escaped = text.charAt(at++);
        switch (escaped) {
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'u' -> {
            if (at + 4 > text.length()) {
              throw new SyntaxException("a short \\u escape", at);
            }
            try {
              out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
            } catch (NumberFormatException e) {
              throw new SyntaxException("a bad \\u escape", at);
            }
            at += 4;
          }
          default -> out.append(escaped); // \" \\ \/
        }
      }
      throw new SyntaxException("an unterminated string", at);
    }

    /** -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
    private Number number() {
      int start = at;
      skip('-');
      if (!skip('0') && digits() == 0) {
        throw new SyntaxException("a bad number", start);
      }
      if (skip('.') && digits() == 0) {
        throw new SyntaxException("a bad fraction", start);
      }
      if (skip('e') || skip('E')) {
        if (!skip('+')) {
          skip('-');
        }
        if (digits() == 0) {
          throw new SyntaxException("a bad exponent", start);
        }
      }
      return new Number(text.substring(start, at));
    }

    private boolean skip(char c) {
      if (at < text.length() && text.charAt(at) == c) {
        ++at;
        return true;
      }
      return false;
    }

    private int digits() {
      int start = at;
      while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
        ++at;
      }
      return at - start;
    }
  }
}
