#include "tools/common/cli_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "acl/acl_base.h"

namespace acldump::tools {
namespace {

TEST(CliUtilTest, HumanNumbers) {
  EXPECT_EQ(HumanBytes(512), "512 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(uint64_t{3} << 30), "3.0 GiB");
  EXPECT_EQ(FormatNumber(0), "0");
  EXPECT_EQ(FormatNumber(1.0 / 3), "0.333333");
  EXPECT_EQ(FormatNumber(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(FormatNumber(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(HumanDuration(0.0025), "2.50 ms");
}

TEST(CliUtilTest, TextTableAlignsColumns) {
  TextTable table({"op", "size"});
  table.AddRow({"conv", "12"});
  table.AddRow({"relu_long", "3"});
  EXPECT_EQ(table.Render("  "),
            "  op         size\n"
            "  conv         12\n"
            "  relu_long     3\n");
}

TEST(CliUtilTest, AVeryLongCellOverflowsItsRowOnly) {
  const std::string long_name(TextTable::kMaxColumnWidth + 40, 'x');
  TextTable table({"op", "size"});
  table.AddRow({"conv", "12"});
  table.AddRow({long_name, "3"});
  const std::string pad(TextTable::kMaxColumnWidth - 2, ' ');
  EXPECT_EQ(table.Render(), "op" + pad + "  size\n" + "conv" + pad.substr(2) +
                                "    12\n" + long_name + "     3\n");
}

TEST(CliUtilTest, HintsNameTheToolAsInstalled) {
  EXPECT_EQ(SpeakToolName("see `dump ls DIR`"), "see `dump ls DIR`");
  SetToolName("acldump");
  EXPECT_EQ(ToolName(), "acldump");
  EXPECT_EQ(SpeakToolName("`dump ls DIR` lists them; `dump show F`, a dump"),
            "`acldump ls DIR` lists them; `acldump show F`, a dump");
  SetToolName("dump");
}

TEST(CliUtilTest, AclErrorNamesAndHints) {
  EXPECT_EQ(AclErrorName(ACL_ERROR_INVALID_DUMP_CONFIG),
            "ACL_ERROR_INVALID_DUMP_CONFIG");
  EXPECT_EQ(AclErrorName(42), "aclError 42");
  const absl::Status status =
      WithHint(absl::NotFoundError("missing"), "check the path");
  EXPECT_EQ(HintOf(status), "check the path");
  EXPECT_EQ(status.message(), "missing");
  EXPECT_EQ(HintOf(absl::InternalError("x")), "");
}

}  // namespace
}  // namespace acldump::tools
