// The renderers of `dump compare`'s result: text, JSON, CSV and the HTML page.
#include "tools/report/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <iterator>
#include <memory>
#include <vector>

#include "base/strings.h"
#include "dump/format/testing/dump_test_util.h"
#include "tools/compare/compare.h"

namespace acldump::tools {
namespace {

using dump::testing::FakeOp;
using dump::testing::FakeTensor;
using dump::testing::ModelFolder;
using dump::testing::NewTempDir;
using dump::testing::WriteDumpFile;
using ::testing::HasSubstr;

// A three-op chain x -> a -> b -> c, each op's input the previous output.
struct Chain {
  std::vector<float> x = {1, 2, 3, 4}, a = {2, 3, 4, 5}, b = {4, 6, 8, 10},
                     c = {3, 5, 7, 9};
};

void WriteChain(const std::string& dir, const Chain& v, bool inputs) {
  auto op = [&](const char* type, const char* name, std::vector<float> in,
                std::vector<float> out) {
    FakeOp f{type, name, {}, {}, {{out}}};
    if (inputs) f.inputs = {{in}};
    return f;
  };
  WriteDumpFile(dir, op("Add", "a", v.x, v.a), 0, 1);
  WriteDumpFile(dir, op("Mul", "b", v.a, v.b), 1, 2);
  WriteDumpFile(dir, op("Sub", "c", v.b, v.c), 2, 3);
}

// Trees the results point into live as long as the test.
const CompareTree& KeepTree(CompareTree tree) {
  static std::vector<std::unique_ptr<CompareTree>>* kept =
      new std::vector<std::unique_ptr<CompareTree>>;
  kept->push_back(std::make_unique<CompareTree>(std::move(tree)));
  return *kept->back();
}

const CompareTree& LoadTree(const std::string& path,
                            const CompareLoadOptions& options = {}) {
  absl::StatusOr<CompareTree> tree = LoadCompareTree(path, options);
  EXPECT_TRUE(tree.ok()) << tree.status();
  return KeepTree(tree.ok() ? *std::move(tree) : CompareTree{});
}

TEST(CompareReportTest, TextJsonCsvAndHtml) {
  const std::string root = NewTempDir("report");
  WriteChain(ModelFolder(root + "/a", 0), {}, true);
  Chain perturbed;
  perturbed.c = {3, 5, 7, 19};
  WriteChain(ModelFolder(root + "/b", 0), perturbed, true);
  const CompareTree &a = LoadTree(root + "/a"), &b = LoadTree(root + "/b");
  const TreeCompareResult r = CompareTrees(a, b, {});
  const ReportContext context{&a, &b, {}, {Metric::kCosine, Metric::kMaxAbs}};
  const std::string text = FormatCompareText(r, context);
  EXPECT_THAT(text, HasSubstr("first diverging operator: c (Sub, task 2)"));
  EXPECT_THAT(text, HasSubstr("<- first divergence"));
  EXPECT_THAT(text, HasSubstr("result: 6 tensors compared, 1 outside the "
                              "tolerance -> FAIL"));
  const std::string json = CompareJson(r, context);
  EXPECT_THAT(json, HasSubstr("\"schema\": \"acldump.compare/1\""));
  EXPECT_THAT(json, HasSubstr("\"basis\": \"inputs_within\""));
  const std::string csv = CompareCsv(r, context);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), StrJoin(CompareCsvColumns(), ","));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);
  const std::string html = RenderCompareHtml(r, context);
  size_t rows = 0;
  for (size_t at = html.find("class=\"op-row"); at != std::string::npos;
       at = html.find("class=\"op-row", at + 1)) {
    ++rows;
  }
  EXPECT_EQ(rows, 6u);
  EXPECT_THAT(html, HasSubstr("id=\"chart-cosine\""));
  EXPECT_THAT(html, HasSubstr("id=\"chart-max_abs\""));
  EXPECT_THAT(html, HasSubstr("id=\"histogram\""));
  EXPECT_THAT(html, HasSubstr("id=\"scatter\""));
  EXPECT_THAT(html,
              HasSubstr("<td class=\"text\">[3]</td><td>9</td><td>19</td>"));
  EXPECT_THAT(html, HasSubstr("class=\"op-row first\" data-op=\"c\""));
  EXPECT_EQ(html.find("http://", html.find("<body")), std::string::npos)
      << "the page must not reference the network";
}

// 1,200 operators: every row is in the table, every chart has a point per
// operator with the first divergence marked, and the page stays small.
TEST(CompareReportTest, ReadableWithThousandsOfOperators) {
  constexpr int kOps = 1200, kPerturbed = 700;
  const std::string root = NewTempDir("report_large");
  for (const char* side : {"a", "b"}) {
    const std::string dir = ModelFolder(StrCat(root, "/", side), 0);
    for (int i = 0; i < kOps; ++i) {
      std::vector<float> out = {1.0f * i, 2, 3, 4};
      if (side[0] == 'b' && i >= kPerturbed) out[3] = 40;
      char name[16];
      std::snprintf(name, sizeof name, "op%04d", i);
      WriteDumpFile(dir, FakeOp{"Relu", name, {}, {}, {{out}}}, i, i + 1);
    }
  }
  const CompareTree &a = LoadTree(root + "/a"), &b = LoadTree(root + "/b");
  const TreeCompareResult r = CompareTrees(a, b, {});
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_EQ(r.tensors_compared, static_cast<size_t>(kOps));
  EXPECT_EQ(r.tensors_outside, static_cast<size_t>(kOps - kPerturbed));
  std::vector<Metric> metrics(std::begin(kAllMetrics), std::end(kAllMetrics));
  const ReportContext context{&a, &b, {}, metrics};
  const std::string html = RenderCompareHtml(r, context);
  auto count = [&](std::string_view needle) {
    size_t n = 0;
    for (size_t at = html.find(needle); at != std::string::npos;
         at = html.find(needle, at + 1)) {
      ++n;
    }
    return n;
  };
  EXPECT_EQ(count("<tr class=\"op-row"), static_cast<size_t>(kOps));
  EXPECT_EQ(count("<tr class=\"op-row first\" data-op=\"op0700\""), 1u);
  EXPECT_THAT(html, HasSubstr("First diverging operator:</b> op0700 (Relu, "
                              "task 700)"));
  // One chart per metric, each with a point per operator, the first
  // divergence drawn once in each.
  EXPECT_EQ(count("<svg id=\"chart-"), metrics.size());
  EXPECT_EQ(count("class=\"pt-first\" data-op=\"op0700 output 0\""),
            metrics.size());
  EXPECT_EQ(count("data-op=\"op0001 output 0\"><title>"), metrics.size());
  EXPECT_LT(html.size(), 8u << 20) << "the page must stay loadable";
}

}  // namespace
}  // namespace acldump::tools
