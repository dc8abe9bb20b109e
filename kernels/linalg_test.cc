// Det on matrices whose determinants are known.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_tester.h"

namespace acldump {
namespace {

using ::acldump::testing::OpTester;
using ::acldump::testing::Values;
using ::testing::HasSubstr;

TEST(LinalgTest, DeterminantsOfABatch) {
  // det [[2, 0], [0, 3]] = 6; a row swap away: -6; singular: 0.
  OpTester t("Det");
  t.Input<double>({3, 2, 2}, {2, 0, 0, 3, 0, 3, 2, 0, 1, 2, 2, 4});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const auto d = Values<double>((*out)[0]);
  EXPECT_DOUBLE_EQ(d[0], 6);
  EXPECT_DOUBLE_EQ(d[1], -6);
  EXPECT_DOUBLE_EQ(d[2], 0);
}

TEST(LinalgTest, ThreeByThreeAndNaN) {
  OpTester t("Det");
  t.Input<float>({2, 3, 3}, {1, 2, 3, 0, 1, 4, 5, 6, 0,  // det 1
                             1, std::numeric_limits<float>::quiet_NaN(), 0, 0,
                             1, 0, 0, 0, 1});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const auto d = Values<float>((*out)[0]);
  EXPECT_NEAR(d[0], 1.0f, 1e-5);
  EXPECT_TRUE(std::isnan(d[1]));
}

TEST(LinalgTest, NonSquareIsRefused) {
  OpTester t("Det");
  t.Input<float>({2, 3}, std::vector<float>(6));
  auto out = t.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("expected [..., M, M] (square matrices)"));
}

}  // namespace
}  // namespace acldump
