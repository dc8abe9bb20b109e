#include "dump/format/stats_csv.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "dump/format/dump_data.pb.h"

namespace acldump::dump {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace toolkit::dumpdata;  // NOLINT: DT_ and FORMAT_ enumerators

// Stats as ComputeStats would produce them, from the values themselves.
TensorStats StatsOf(const std::vector<double>& values) {
  TensorStats s;
  s.count = values.size();
  for (double v : values) {
    if (std::isnan(v)) {
      ++s.nan;
    } else if (std::isinf(v)) {
      ++(v < 0 ? s.negative_inf : s.positive_inf);
    } else {
      s.max = s.finite == 0 ? v : std::max(s.max, v);
      s.min = s.finite == 0 ? v : std::min(s.min, v);
      s.sum += v;
      s.sum_squares += v * v;
      ++s.finite;
    }
  }
  return s;
}

StatsRow Row(bool is_input, uint32_t index, uint64_t data_size,
             int32_t data_type, int32_t format, std::vector<int64_t> shape,
             const std::vector<double>& values) {
  StatsRow row;
  row.is_input = is_input;
  row.index = index;
  row.data_size = data_size;
  row.data_type = data_type;
  row.format = format;
  row.shape = std::move(shape);
  row.stats = StatsOf(values);
  return row;
}

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<StatsRow> SampleRows() {
  std::vector<StatsRow> rows;
  // float32 with NaN and both infinities: Max inf, Min -inf, Avg nan.
  rows.push_back(
      Row(false, 0, 32, DT_FLOAT, FORMAT_NCHW, {1, 2, 2, 2},
          {3.5, static_cast<float>(-0.1), 1, 1, 1, kNan, -kInf, kInf}));
  // float16 at its maximum: 2 bytes per element, sums do not overflow.
  rows.push_back(
      Row(true, 1, 6, DT_FLOAT16, FORMAT_ND, {3}, {65504, 65504, 65504}));
  // int32 scalar: empty shape, Max/Min exact, Avg six digits.
  rows.push_back(Row(true, 0, 4, DT_INT32, FORMAT_NHWC, {}, {2147483647}));
  // Only NaN: nan for Max, Min and Avg.
  rows.push_back(Row(false, 1, 8, DT_FLOAT, FORMAT_ND, {2}, {kNan, kNan}));
  // A type without statistics: every statistic cell empty.
  StatsRow strings = Row(false, 2, 0, DT_STRING, FORMAT_ND, {2}, {});
  strings.numeric = false;
  rows.push_back(strings);
  // int64 beyond float precision.
  rows.push_back(Row(false, 3, 16, DT_INT64, FORMAT_ND, {2}, {1e18, -5}));
  // Empty tensor.
  rows.push_back(Row(false, 4, 0, DT_FLOAT, FORMAT_ND, {0, 3}, {}));
  return rows;
}

TEST(StatsCsvTest, DefaultLayoutExactText) {
  EXPECT_EQ(
      FormatStatsCsv(SampleRows(), {}),
      "Input/Output,Index,Data Size,Data Type,Format,Shape,Max Value,Min "
      "Value,Avg Value,Count,Nan Count,Negative Inf Count,Positive Inf Count\n"
      "Output,0,32,DT_FLOAT,NCHW,1x2x2x2,inf,-inf,nan,8,1,1,1\n"
      "Input,1,6,DT_FLOAT16,ND,3,65504,65504,65504,3,0,0,0\n"
      "Input,0,4,DT_INT32,NHWC,,2147483647,2147483647,2.14748e+09,1,0,0,0\n"
      "Output,1,8,DT_FLOAT,ND,2,nan,nan,nan,2,2,0,0\n"
      "Output,2,0,DT_STRING,ND,2,,,,,,,\n"
      "Output,3,16,DT_INT64,ND,2,1000000000000000000,-5,5e+17,2,0,0,0\n"
      "Output,4,0,DT_FLOAT,ND,0x3,NA,NA,NA,0,0,0,0\n");
}

// Rows the SDK's own writer tests assert, and the infinity cases.
TEST(StatsCsvTest, InfAndNanAsTheSdkWritesThem) {
  const std::vector<StatsRow> rows = {
      Row(true, 0, 20, DT_FLOAT, FORMAT_NCHW, {5}, {1, -2, kInf, -kInf, kNan}),
      Row(true, 0, 12, DT_FLOAT, FORMAT_NCHW, {3}, {3, -2, 1}),
      Row(false, 0, 2, DT_INT8, FORMAT_ND, {2}, {5, -3}),
      Row(false, 0, 8, DT_INT32, FORMAT_ND, {2}, {4, -6}),
      Row(false, 0, 8, DT_FLOAT, FORMAT_ND, {2}, {1, kInf}),
      Row(false, 0, 8, DT_FLOAT, FORMAT_ND, {2}, {-kInf, 2}),
      Row(false, 0, 12, DT_FLOAT, FORMAT_ND, {3}, {kNan, kInf, 1}),
      Row(false, 0, 4, DT_FLOAT, FORMAT_ND, {1}, {kInf}),
      Row(false, 0, 8, DT_BF16, FORMAT_ND, {4}, {3.9621367, 1, 1, 1}),
  };
  EXPECT_EQ(FormatStatsCsv(rows, {}),
            std::string(kDefaultStatsCsvHeader) + "\n" +
                "Input,0,20,DT_FLOAT,NCHW,5,inf,-inf,nan,5,1,1,1\n"
                "Input,0,12,DT_FLOAT,NCHW,3,3,-2,0.666667,3,0,0,0\n"
                "Output,0,2,DT_INT8,ND,2,5,-3,1,2,0,0,0\n"
                "Output,0,8,DT_INT32,ND,2,4,-6,-1,2,0,0,0\n"
                "Output,0,8,DT_FLOAT,ND,2,inf,1,inf,2,0,0,1\n"
                "Output,0,8,DT_FLOAT,ND,2,2,-inf,-inf,2,0,1,0\n"
                "Output,0,12,DT_FLOAT,ND,3,inf,1,nan,3,1,0,1\n"
                "Output,0,4,DT_FLOAT,ND,1,inf,inf,inf,1,0,0,1\n"
                "Output,0,8,DT_BF16,ND,4,3.96214,1,1.74053,4,0,0,0\n");
}

TEST(StatsCsvTest, ChosenColumnsFollowCountInFixedOrder) {
  const StatColumn columns[] = {StatColumn::kL2norm, StatColumn::kMax,
                                StatColumn::kNan, StatColumn::kMax};
  EXPECT_EQ(FormatStatsCsv(SampleRows(), columns),
            "Input/Output,Index,Data Size,Data Type,Format,Shape,Count,Max "
            "Value,Nan Count,l2norm\n"
            "Output,0,32,DT_FLOAT,NCHW,1x2x2x2,8,inf,1,nan\n"
            "Input,1,6,DT_FLOAT16,ND,3,3,65504,0,113456\n"
            "Input,0,4,DT_INT32,NHWC,,1,2147483647,0,2.14748e+09\n"
            "Output,1,8,DT_FLOAT,ND,2,2,nan,2,nan\n"
            "Output,2,0,DT_STRING,ND,2,,,,\n"
            "Output,3,16,DT_INT64,ND,2,2,1000000000000000000,0,1e+18\n"
            "Output,4,0,DT_FLOAT,ND,0x3,0,NA,0,NA\n");
}

TEST(StatsCsvTest, TheChecksumIsSixteenHexDigitsForEveryType) {
  std::vector<StatsRow> rows = SampleRows();
  rows[0].stats.checksum = 0x2d06800538d394c2u;
  rows[4].stats.checksum = 0xau;  // DT_STRING: no statistics, but bytes
  const StatColumn columns[] = {StatColumn::kChecksum, StatColumn::kMax};
  const std::string csv = FormatStatsCsv(rows, columns);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "Input/Output,Index,Data Size,Data Type,Format,Shape,Count,Max "
            "Value,Checksum");
  EXPECT_NE(csv.find("Output,0,32,DT_FLOAT,NCHW,1x2x2x2,8,inf,"
                     "2d06800538d394c2\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("Output,2,0,DT_STRING,ND,2,,,000000000000000a\n"),
            std::string::npos)
      << csv;
  EXPECT_EQ(StatColumnFromConfigName("Checksum"), StatColumn::kChecksum);
}

TEST(StatsCsvTest, EveryColumnHeader) {
  EXPECT_EQ(StatsCsvHeader(kAllStatColumns),
            "Input/Output,Index,Data Size,Data Type,Format,Shape,Count,Max "
            "Value,Min Value,Avg Value,Nan Count,Negative Inf Count,Positive "
            "Inf Count,l2norm,Checksum");
  EXPECT_EQ(StatsCsvHeader({}), kDefaultStatsCsvHeader);
  const StatColumn avg[] = {StatColumn::kAvg};
  EXPECT_EQ(FormatStatsCsv({}, avg),
            "Input/Output,Index,Data Size,Data Type,Format,Shape,Count,Avg "
            "Value\n");
}

TEST(StatsCsvTest, NumbersHaveSixSignificantDigits) {
  // Max/Min of floating-point data and every Avg: six significant digits, as
  // a default C++ stream prints them; integer Max/Min exactly.
  StatsRow f = Row(false, 0, 8, DT_FLOAT, FORMAT_ND, {2},
                   {static_cast<float>(0.1), static_cast<float>(1e-7)});
  StatsRow d = Row(false, 0, 16, DT_DOUBLE, FORMAT_ND, {2}, {0.1, 1e-7});
  StatsRow bf = Row(false, 0, 2, DT_BF16, FORMAT_ND, {1}, {-3.390625});
  StatsRow u8 = Row(false, 0, 2, DT_UINT8, FORMAT_ND, {2}, {0, 255});
  StatsRow b = Row(false, 0, 2, DT_BOOL, FORMAT_ND, {2}, {0, 1});
  StatsRow big = Row(false, 0, 8, DT_FLOAT, FORMAT_ND, {2}, {1e6, 123456789});
  const StatColumn columns[] = {StatColumn::kMax, StatColumn::kMin,
                                StatColumn::kAvg};
  EXPECT_EQ(FormatStatsCsv({f, d, bf, u8, b, big}, columns),
            "Input/Output,Index,Data Size,Data Type,Format,Shape,Count,Max "
            "Value,Min Value,Avg Value\n"
            "Output,0,8,DT_FLOAT,ND,2,2,0.1,1e-07,0.0500001\n"
            "Output,0,16,DT_DOUBLE,ND,2,2,0.1,1e-07,0.0500001\n"
            "Output,0,2,DT_BF16,ND,1,1,-3.39062,-3.39062,-3.39062\n"
            "Output,0,2,DT_UINT8,ND,2,2,255,0,127.5\n"
            "Output,0,2,DT_BOOL,ND,2,2,1,0,0.5\n"
            "Output,0,8,DT_FLOAT,ND,2,2,1.23457e+08,1e+06,6.22284e+07\n");
}

TEST(StatsCsvTest, RealsAreWhatPrintfWritesForPercentPoint6g) {
  // Rounding edges, exponent switches, subnormals, the extremes of double.
  std::vector<double> values = {0.0,
                                -0.0,
                                999999.5,
                                9999995.0,
                                1e-4,
                                9.99999e-5,
                                1e-5,
                                123456.5,
                                0.5e-6,
                                4.9e-324,
                                2.2250738585072014e-308,
                                1.7976931348623157e308,
                                -1.0 / 3};
  std::mt19937_64 random(7);
  for (int i = 0; i < 2000; ++i) {
    const uint64_t bits = random();
    double value;
    std::memcpy(&value, &bits, sizeof value);
    if (std::isfinite(value)) values.push_back(value);
  }
  const StatColumn max[] = {StatColumn::kMax};
  for (const double value : values) {
    char expected[64];
    std::snprintf(expected, sizeof expected, "%.6g", value);
    const std::string csv = FormatStatsCsv(
        {Row(false, 0, 8, DT_DOUBLE, FORMAT_ND, {1}, {value})}, max);
    EXPECT_EQ(csv.substr(csv.rfind(',') + 1), std::string(expected) + "\n")
        << value;
  }
}

TEST(StatsCsvTest, ParsesWhatItWrites) {
  const std::string text = FormatStatsCsv(SampleRows(), {});
  absl::StatusOr<StatsTable> table = ParseStatsCsv(text);
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_EQ(table->header.size(), 13u);
  ASSERT_EQ(table->rows.size(), 7u);
  EXPECT_EQ(table->ColumnIndex("Count"), 9u);
  EXPECT_EQ(table->ColumnIndex("count"), std::nullopt);
  EXPECT_EQ(*table->Cell(0, "Input/Output"), "Output");
  EXPECT_EQ(*table->Cell(1, "Data Type"), "DT_FLOAT16");
  EXPECT_EQ(**table->Double(0, "Min Value"), -kInf);
  EXPECT_EQ(**table->Double(0, "Max Value"), kInf);
  EXPECT_TRUE(std::isnan(**table->Double(0, "Avg Value")));
  EXPECT_EQ(*table->Double(1, "Avg Value"), 65504.0);
  EXPECT_TRUE(std::isnan(**table->Double(3, "Max Value")));
  EXPECT_EQ(*table->Double(6, "Max Value"), std::nullopt);  // NA
  EXPECT_EQ(*table->Uint64(0, "Nan Count"), 1u);
  EXPECT_EQ(*table->Uint64(4, "Count"), std::nullopt);  // empty cell
  EXPECT_EQ(*table->Uint64(5, "Max Value"), 1000000000000000000u);
  EXPECT_THAT(*table->ShapeOf(0), ElementsAre(1, 2, 2, 2));
  EXPECT_THAT(*table->ShapeOf(2), ElementsAre());
  EXPECT_THAT(*table->ShapeOf(6), ElementsAre(0, 3));

  EXPECT_THAT(table->Cell(0, "Nope").status().message(),
              HasSubstr("no column \"Nope\""));
  EXPECT_THAT(table->Cell(7, "Count").status().message(),
              HasSubstr("row 7 does not exist (7 rows)"));
  EXPECT_THAT(table->Double(0, "Data Type").status().message(),
              HasSubstr("row 0, column \"Data Type\": \"DT_FLOAT\" is not a "
                        "number"));
  EXPECT_THAT(table->Uint64(5, "Min Value").status().message(),
              HasSubstr("\"-5\" is not a non-negative integer"));
}

TEST(StatsCsvTest, ParsesQuotesCrlfAndBlankLines) {
  absl::StatusOr<StatsTable> table = ParseStatsCsv(
      "\xEF\xBB\xBF"
      "Name,Value\r\n\r\n\"a,b\",\"say \"\"hi\"\"\"\r\n\"multi\nline\",\n"
      "x,\"\"");
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_THAT(table->header, ElementsAre("Name", "Value"));
  ASSERT_EQ(table->rows.size(), 3u);
  EXPECT_THAT(table->rows[0], ElementsAre("a,b", "say \"hi\""));
  EXPECT_THAT(table->rows[1], ElementsAre("multi\nline", ""));
  EXPECT_THAT(table->rows[2], ElementsAre("x", ""));
}

TEST(StatsCsvTest, ParseErrors) {
  auto error = [](std::string_view text) {
    absl::StatusOr<StatsTable> table = ParseStatsCsv(text);
    EXPECT_FALSE(table.ok()) << text;
    return std::string(table.status().message());
  };
  EXPECT_THAT(error(""), HasSubstr("empty: no header line"));
  EXPECT_THAT(error("\n\n"), HasSubstr("empty: no header line"));
  EXPECT_THAT(error("a,b,c\n1,2,3\n1,2\n"),
              HasSubstr("line 3: 2 fields but the header has 3"));
  EXPECT_THAT(error("a,b\n1,2,3\n"),
              HasSubstr("line 2: 3 fields but the header has 2"));
  EXPECT_THAT(error("a,b\n\n\n1\n"),
              HasSubstr("line 4: 1 fields but the header has 2"));
  EXPECT_THAT(error("a,b\n\"1,2\n"), HasSubstr("line 2: quoted field is not "
                                               "closed"));
  EXPECT_THAT(error("a,b\n\"1\"x,2\n"),
              HasSubstr("line 2: unexpected character after a closing quote"));
  EXPECT_THAT(error("a,b\n1\"2,3\n"),
              HasSubstr("line 2: '\"' inside an unquoted field"));
  EXPECT_THAT(error("a,b,a\n"),
              HasSubstr("line 1: column \"a\" appears twice in the header"));
  EXPECT_THAT(error(std::string(kMaxStatsCsvColumns + 1, ',')),
              HasSubstr("line 1: more than 1024 fields"));
  EXPECT_THAT(error(std::string(kMaxStatsCsvBytes + 1, 'a')),
              HasSubstr("more than the limit of 67108864"));
  // A million tiny rows would cost far more memory than text.
  std::string many = "a\n";
  for (int i = 0; i < (1 << 22) + 1; ++i) many += "1\n";
  EXPECT_THAT(error(many), HasSubstr("cells in the file"));
}

TEST(StatsCsvTest, ShapeParsing) {
  EXPECT_THAT(*ParseStatsShape("-"), ElementsAre());
  EXPECT_THAT(*ParseStatsShape(""), ElementsAre());
  EXPECT_THAT(*ParseStatsShape("7"), ElementsAre(7));
  EXPECT_THAT(*ParseStatsShape("1x3x224x224"), ElementsAre(1, 3, 224, 224));
  for (std::string_view bad :
       {"x", "1x", "x1", "1xx2", "1x-2", "a", "1 x2", "99999999999999999999"}) {
    EXPECT_THAT(ParseStatsShape(bad).status().message(),
                HasSubstr("is not \"-\" or dims joined by 'x'"))
        << bad;
  }
}

}  // namespace
}  // namespace acldump::dump
