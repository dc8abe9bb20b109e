// Text for messages about untrusted input: values made safe to print (control
// characters and ill-formed UTF-8 escaped, long values cut), quoting, plurals,
// and "did you mean" suggestions by edit distance.
//
// Every function is pure and thread-safe; none throws except std::bad_alloc.
#ifndef ACLDUMP_BASE_TEXT_H_
#define ACLDUMP_BASE_TEXT_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace acldump {

// `text` without leading and trailing whitespace (space, \t, \n, \v, \f, \r).
std::string_view TrimWhitespace(std::string_view text);
// The parts of `text` between `separator`s (empty parts kept; "" gives {""}).
std::vector<std::string_view> SplitOn(std::string_view text, char separator);

// How many characters of an untrusted value a message shows by default.
inline constexpr size_t kMaxShownChars = 80;

// Length of the well-formed UTF-8 sequence starting at text[i] (1 to 4), or 0
// if the bytes there are ill-formed (overlong, surrogate, above U+10FFFF,
// truncated). `i` must be < text.size().
size_t Utf8SequenceLength(std::string_view text, size_t i);

// Whether all of `text` is well-formed UTF-8.
bool IsUtf8(std::string_view text);

// Number of characters (code points) in UTF-8 text; stray continuation bytes
// are not counted.
size_t Utf8Chars(std::string_view text);

// `text` made safe to print: '\n' and '\t' as escapes, other control
// characters and ill-formed UTF-8 bytes as \xNN, cut after `max_chars`
// characters with "... (N bytes)" appended.
std::string Printable(std::string_view text, size_t max_chars = kMaxShownChars);

// Printable(text) in single quotes: 'text'.
std::string Quote(std::string_view text, size_t max_chars = kMaxShownChars);

// "'a', 'b', 'c'" (each word as written: callers pass known, printable words).
std::string QuotedList(const std::vector<std::string_view>& words);

// "1 model", "2 models".
std::string Plural(size_t n, std::string_view noun);

// ASCII letters lowered; other bytes unchanged.
std::string AsciiLower(std::string_view text);

// Levenshtein distance (insertions, deletions, substitutions of bytes).
// O(a.size() * b.size()) time, O(b.size()) memory.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate most likely meant by `word` (a typo of it): the smallest
// case-insensitive edit distance within max(2, candidate length / 3), or a
// candidate of at least 4 characters that contains `word` or is contained in
// it. Ties go to the earlier candidate. Words longer than 64 bytes get no
// suggestion.
std::optional<std::string_view> NearestWord(
    std::string_view word, const std::vector<std::string_view>& candidates);

// Up to `max_count` candidates close to `word` by the rule of NearestWord,
// nearest first (ties in candidate order), without duplicates.
std::vector<std::string_view> NearestWords(
    std::string_view word, const std::vector<std::string_view>& candidates,
    size_t max_count);

}  // namespace acldump

#endif  // ACLDUMP_BASE_TEXT_H_
