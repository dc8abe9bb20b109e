// String building for messages. Debian's abseil is built with its own
// absl::string_view (not std::string_view), so StrCat does not take
// std::string_view; these helpers (on fmt) take both.
#ifndef ACLDUMP_BASE_STRINGS_H_
#define ACLDUMP_BASE_STRINGS_H_

#include <charconv>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>

#include "absl/strings/string_view.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace acldump {
namespace strings_internal {

// Text and integers are appended directly (the dump writer builds names and
// rows with these); anything else goes through fmt.
template <typename T>
void AppendOne(std::string& out, const T& value) {
  if constexpr (std::is_same_v<T, absl::string_view>) {
    out.append(value.data(), value.size());
  } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    out += std::string_view(value);
  } else if constexpr (std::is_same_v<T, bool>) {
    out += value ? "true" : "false";
  } else if constexpr (std::is_same_v<T, char>) {
    out += value;
  } else if constexpr (std::is_integral_v<T>) {
    char text[24];
    out.append(text, std::to_chars(text, text + sizeof text, value).ptr);
  } else {
    fmt::format_to(std::back_inserter(out), "{}", value);
  }
}

}  // namespace strings_internal

// Concatenates the textual forms of the arguments (numbers in their shortest
// exact form).
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::string out;
  (strings_internal::AppendOne(out, args), ...);
  return out;
}

template <typename... Args>
void StrAppend(std::string& out, const Args&... args) {
  (strings_internal::AppendOne(out, args), ...);
}

// Joins the elements of a range with `separator`.
template <typename Range>
std::string StrJoin(const Range& range, std::string_view separator) {
  return fmt::format("{}", fmt::join(range, separator));
}

inline std::string_view ToStd(absl::string_view s) {
  return {s.data(), s.size()};
}

// The text of an errno value ("No such file or directory"). Thread-safe,
// unlike strerror.
inline std::string ErrnoText(int error) {
  return std::generic_category().message(error);
}

}  // namespace acldump

#endif  // ACLDUMP_BASE_STRINGS_H_
