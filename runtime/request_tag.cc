#include "runtime/request_tag.h"

namespace acldump {
namespace {
thread_local std::string_view current_tag;
}  // namespace

std::string_view CurrentRequestTag() { return current_tag; }

ScopedRequestTag::ScopedRequestTag(std::string_view tag)
    : previous_(current_tag) {
  current_tag = tag;
}

ScopedRequestTag::~ScopedRequestTag() { current_tag = previous_; }

}  // namespace acldump
