#include "base/error_kind.h"

#include "base/status_macros.h"
#include "gtest/gtest.h"

namespace acldump {
namespace {

TEST(ErrorKindTest, EveryKindSurvivesTheRoundTrip) {
  for (int k = static_cast<int>(ErrorKind::kInvalidFile);
       k <= static_cast<int>(kLastErrorKind); ++k) {
    const auto kind = static_cast<ErrorKind>(k);
    absl::Status status = WithKind(absl::InternalError("x"), kind);
    EXPECT_EQ(KindOf(status), kind) << k;
    EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
    EXPECT_EQ(status.message(), "x");
  }
}

TEST(ErrorKindTest, OkAndUntaggedStatusesHaveNoKind) {
  EXPECT_TRUE(WithKind(absl::OkStatus(), ErrorKind::kParseModel).ok());
  EXPECT_EQ(KindOf(absl::OkStatus()), std::nullopt);
  EXPECT_EQ(KindOf(absl::NotFoundError("no")), std::nullopt);
}

TEST(ErrorKindTest, KindErrorCarriesCodeAndMessage) {
  absl::Status status = KindError(ErrorKind::kRtContextNull, "no context");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "no context");
  EXPECT_EQ(KindOf(status), ErrorKind::kRtContextNull);
  EXPECT_EQ(KindError(ErrorKind::kRtReportTimeout, "late",
                      absl::StatusCode::kDeadlineExceeded)
                .code(),
            absl::StatusCode::kDeadlineExceeded);
}

TEST(ErrorKindTest, AnnotateKeepsTheKind) {
  const absl::Status status =
      Annotate(KindError(ErrorKind::kModelInputNotMatch, "input 0 is 4 bytes"),
               "aclmdlExecuteAsync");
  EXPECT_EQ(status.message(), "aclmdlExecuteAsync: input 0 is 4 bytes");
  EXPECT_EQ(KindOf(status), ErrorKind::kModelInputNotMatch);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Annotate(absl::OkStatus(), "x").ok());
}

}  // namespace
}  // namespace acldump
