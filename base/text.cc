#include "base/text.h"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>

#include "base/strings.h"

namespace acldump {

std::string_view TrimWhitespace(std::string_view text) {
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
           c == '\r';
  };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> SplitOn(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}
namespace {

// Longest word NearestWord considers: longer ones are not typos of a key, and
// the edit distance is quadratic.
constexpr size_t kMaxSuggestedWordBytes = 64;

struct Closeness {
  bool close = false;
  size_t distance = std::numeric_limits<size_t>::max();
};

// How close `candidate` is to `lower_word` (already lowered), by the rule
// documented at NearestWord.
Closeness Compare(const std::string& lower_word, std::string_view candidate) {
  const std::string other = AsciiLower(candidate);
  const size_t distance = EditDistance(lower_word, other);
  const bool contained = std::min(lower_word.size(), other.size()) >= 4 &&
                         (other.find(lower_word) != std::string::npos ||
                          lower_word.find(other) != std::string::npos);
  const size_t threshold = std::max<size_t>(2, other.size() / 3);
  return {distance <= threshold || contained, distance};
}

}  // namespace

size_t Utf8SequenceLength(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) {
    return static_cast<unsigned char>(text[k]);
  };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

bool IsUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = Utf8SequenceLength(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

size_t Utf8Chars(std::string_view text) {
  size_t chars = 0;
  for (char c : text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return chars;
}

std::string Printable(std::string_view text, size_t max_chars) {
  std::string out;
  size_t chars = 0;
  size_t i = 0;
  while (i < text.size()) {
    if (chars == max_chars) {
      StrAppend(out, "... (", text.size(), " bytes)");
      break;
    }
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const size_t n = Utf8SequenceLength(text, i);
    if (n == 0 || c < 0x20 || c == 0x7F) {
      if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else {
        out += fmt::format("\\x{:02x}", c);
      }
      i += 1;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
    ++chars;
  }
  return out;
}

std::string Quote(std::string_view text, size_t max_chars) {
  return StrCat("'", Printable(text, max_chars), "'");
}

std::string QuotedList(const std::vector<std::string_view>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    StrAppend(out, i == 0 ? "" : ", ", "'", words[i], "'");
  }
  return out;
}

std::string Plural(size_t n, std::string_view noun) {
  return StrCat(n, " ", noun, n == 1 ? "" : "s");
}

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string_view> NearestWord(
    std::string_view word, const std::vector<std::string_view>& candidates) {
  const std::vector<std::string_view> nearest =
      NearestWords(word, candidates, 1);
  if (nearest.empty()) return std::nullopt;
  return nearest.front();
}

std::vector<std::string_view> NearestWords(
    std::string_view word, const std::vector<std::string_view>& candidates,
    size_t max_count) {
  std::vector<std::string_view> out;
  if (word.size() > kMaxSuggestedWordBytes || max_count == 0) return out;
  const std::string lower = AsciiLower(word);
  // (distance, candidate index) of every close candidate.
  std::vector<std::pair<size_t, size_t>> close;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].size() > 4 * kMaxSuggestedWordBytes) continue;
    const Closeness c = Compare(lower, candidates[i]);
    if (c.close) close.emplace_back(c.distance, i);
  }
  std::stable_sort(close.begin(), close.end());
  std::set<std::string_view> seen;
  for (const auto& [distance, index] : close) {
    if (out.size() == max_count) break;
    if (seen.insert(candidates[index]).second) out.push_back(candidates[index]);
  }
  return out;
}

}  // namespace acldump
