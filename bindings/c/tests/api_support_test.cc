// The status -> aclError conversion: every kind, and aclInit's
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

TEST(ApiSupportTest, EveryKindHasItsOwnCode) {
  // No kind falls through to the caller's fallback (-1 here).
  for (int k = static_cast<int>(ErrorKind::kInvalidFile);
       k <= static_cast<int>(kLastErrorKind); ++k) {
    EXPECT_NE(FailWith(Tagged(static_cast<ErrorKind>(k)), -1), -1) << k;
  }
  EXPECT_EQ(FailWith(Tagged(ErrorKind::kDumpNotInitialized), -1),
            ACL_ERROR_DUMP_NOT_RUN);
  EXPECT_EQ(FailWith(Tagged(ErrorKind::kDumpAlreadyInitialized), -1),
            ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_EQ(FailWith(Tagged(ErrorKind::kRtContextNull), -1),
            ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(FailWith(Tagged(ErrorKind::kModelParamInvalid), -1),
            ACL_ERROR_GE_PARAM_INVALID);
  EXPECT_EQ(Translate(absl::OkStatus()), ACL_SUCCESS);
  EXPECT_EQ(Translate(absl::DataLossError("x")), ACL_ERROR_FAILURE);
}

}  // namespace
}  // namespace acldump::capi
