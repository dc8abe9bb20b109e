// The status -> aclError conversion: kinds, lifecycle errors, and aclInit's
// own reading of text that is not JSON.
#include "bindings/c/api_support.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "base/error_kind.h"

namespace acldump::capi {
namespace {

absl::Status Tagged(ErrorKind kind) {
  return WithKind(absl::InvalidArgumentError("acl.json: not JSON"), kind);
}

TEST(ApiSupportTest, TextThatIsNotJsonDependsOnTheEntryPoint) {
  // aclmdlSetDump: an invalid dump config; aclInit: a parse error (the SDK).
  EXPECT_EQ(FailWith(Tagged(ErrorKind::kInvalidJson), ACL_ERROR_FAILURE),
            ACL_ERROR_INVALID_DUMP_CONFIG);
  EXPECT_EQ(FailAclInit(Tagged(ErrorKind::kInvalidJson)), ACL_ERROR_PARSE_FILE);
  EXPECT_STREQ(RecentError(), "acl.json: not JSON");
  // Everything else maps the same way for both.
  EXPECT_EQ(FailAclInit(Tagged(ErrorKind::kParseFile)), ACL_ERROR_PARSE_FILE);
  EXPECT_EQ(FailAclInit(Tagged(ErrorKind::kInvalidDumpConfig)),
            ACL_ERROR_INVALID_DUMP_CONFIG);
  EXPECT_EQ(FailAclInit(absl::InternalError("?")), ACL_ERROR_INTERNAL_ERROR);
  EXPECT_EQ(FailAclInit(absl::NotFoundError("gone")), ACL_ERROR_INVALID_FILE);
}

TEST(ApiSupportTest, OutOfMemoryIsBadAlloc) {
  EXPECT_EQ(FailWith(Tagged(ErrorKind::kOutOfMemory), ACL_ERROR_FAILURE),
            ACL_ERROR_BAD_ALLOC);
  EXPECT_EQ(GuardedCall([]() -> aclError { throw std::bad_alloc(); }),
            ACL_ERROR_BAD_ALLOC);
  EXPECT_STREQ(RecentError(), "out of memory");
  EXPECT_EQ(Guarded<int>(-1, []() -> int { throw std::runtime_error("x"); }),
            -1);
  EXPECT_STREQ(RecentError(), "internal error: x");
}

TEST(ApiSupportTest, WithContextKeepsTheKind) {
  const absl::Status status =
      WithContext(Tagged(ErrorKind::kModelInputNotMatch), "aclmdlExecuteAsync");
  EXPECT_EQ(status.message(), "aclmdlExecuteAsync: acl.json: not JSON");
  EXPECT_EQ(KindOf(status), ErrorKind::kModelInputNotMatch);
  EXPECT_TRUE(WithContext(absl::OkStatus(), "x").ok());
}

}  // namespace
}  // namespace acldump::capi
