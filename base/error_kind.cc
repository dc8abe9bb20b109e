#include "base/error_kind.h"

#include <string>

#include "absl/strings/cord.h"

namespace acldump {
namespace {
constexpr char kPayloadUrl[] = "acldump.dev/error_kind";
}  // namespace

absl::Status WithKind(absl::Status status, ErrorKind kind) {
  if (status.ok()) return status;
  status.SetPayload(kPayloadUrl,
                    absl::Cord(std::to_string(static_cast<int>(kind))));
  return status;
}

absl::Status KindError(ErrorKind kind, std::string_view message,
                       absl::StatusCode code) {
  return WithKind(
      absl::Status(code, absl::string_view(message.data(), message.size())),
      kind);
}

std::optional<ErrorKind> KindOf(const absl::Status& status) {
  absl::optional<absl::Cord> payload = status.GetPayload(kPayloadUrl);
  if (!payload) return std::nullopt;
  const std::string text(*payload);
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  if (value < static_cast<int>(ErrorKind::kInvalidFile) ||
      value > static_cast<int>(kLastErrorKind)) {
    return std::nullopt;
  }
  return static_cast<ErrorKind>(value);
}

}  // namespace acldump
