// Each payload's files field by field: dump file headers as the SDK's writer
// fills them, and stats rows for every tensor kind and NaN/Inf case, computed
// from real tensors.
#include "dump/payload.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>

#include "base/strings.h"
#include "dump/config.h"
#include "dump/format/dump_file.h"
#include "dump/format/stats_csv.h"
#include "dump/stats.h"
#include "kernels/half.h"

namespace acldump::dump {
namespace {

using ::testing::ElementsAre;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

Tensor FloatTensor(DType dtype, std::vector<int64_t> shape,
                   const std::vector<float>& values) {
  Tensor t(dtype, Shape(std::move(shape)));
  for (size_t i = 0; i < values.size(); ++i) {
    switch (dtype) {
      case DType::kFloat32:
        t.as<float>()[i] = values[i];
        break;
      case DType::kFloat16:
        t.as<uint16_t>()[i] = FloatToHalfBits(values[i]);
        break;
      case DType::kBFloat16:
        t.as<BFloat16>()[i] = BFloat16(values[i]);
        break;
      case DType::kInt32:
        t.as<int32_t>()[i] = static_cast<int32_t>(values[i]);
        break;
      default:
        ADD_FAILURE() << "unexpected dtype";
    }
  }
  return t;
}

// A record of `tensors` (inputs first) rendered through `payload`.
RenderedFile Render(const Payload& payload, RecordSpec spec,
                    const std::vector<const Tensor*>& tensors, WriteJob& job) {
  job.iteration = 3;
  job.timestamp_us = 1700000000123456;
  job.buffer = AlignedBuffer(payload.JobBytes(spec));
  payload.Begin(spec.tensors.size(), job);
  for (size_t i = 0; i < tensors.size(); ++i) {
    payload.Capture(i, tensors[i]->view(), job);
  }
  std::shared_ptr<const JobRenderer> renderer =
      payload.MakeRenderer(std::move(spec));
  RenderedFile file;
  EXPECT_TRUE(renderer->Render(job, file).ok());
  return file;
}

std::string Bytes(const RenderedFile& file) {
  std::string bytes = file.head;
  for (std::string_view payload : file.payloads) bytes.append(payload);
  return bytes;
}

RecordSpec TwoInOneOut(const Tensor& a, const Tensor& b, const Tensor& out) {
  RecordSpec spec;
  spec.directory = "0/net/1";
  spec.op_type = "Conv";
  spec.op_name = "conv1 relu/1";
  spec.task_id = 7;
  spec.tensors = {{true, 0, a.info(), ""},
                  {true, 2, b.info(), ""},
                  {false, 0, out.info(), "relu1"}};
  spec.attrs = {{"op_type", "Conv"}, {"original_names", "conv1,relu1"}};
  return spec;
}

TEST(TensorPayloadTest, HeaderFieldsAsTheSdkFillsThem) {
  const Tensor a = FloatTensor(DType::kFloat16, {1, 2, 2, 2},
                               {1, -2, kInf, kNan, 0, 65504, -65504, 0.5f});
  const Tensor b = FloatTensor(DType::kBFloat16, {3}, {1.5f, -kInf, 2});
  const Tensor out = FloatTensor(DType::kInt32, {2, 2}, {1, -2, 3, 2147483520});
  std::unique_ptr<const Payload> payload = FindPayload("tensor")->make({});
  WriteJob job;
  RenderedFile file =
      Render(*payload, TwoInOneOut(a, b, out), {&a, &b, &out}, job);
  EXPECT_EQ(file.directory, "0/net/1/3");
  EXPECT_EQ(file.name, "Conv.conv1_relu_1.7.0.1700000000123456");
  EXPECT_EQ(file.form, RecordFile::kDumpFile);
  EXPECT_EQ(file.suffix(), "");

  absl::StatusOr<DumpFileContents> parsed = ParseDumpFile(Bytes(file));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const auto& header = parsed->header;
  EXPECT_EQ(header.version(), "2.0");
  EXPECT_EQ(header.dump_time(), 1700000000123456u);
  EXPECT_EQ(header.op_name(), "conv1 relu/1");
  ASSERT_EQ(header.input_size(), 2);
  ASSERT_EQ(header.output_size(), 1);
  // Inputs: type, format (NCHW for rank 4, else ND), shape = original shape,
  // size, the address the tensor had; arg_index is never set.
  const auto& in0 = header.input(0);
  EXPECT_EQ(in0.data_type(), toolkit::dumpdata::DT_FLOAT16);
  EXPECT_EQ(in0.format(), toolkit::dumpdata::FORMAT_NCHW);
  EXPECT_THAT(in0.shape().dim(), ElementsAre(1, 2, 2, 2));
  EXPECT_THAT(in0.original_shape().dim(), ElementsAre(1, 2, 2, 2));
  EXPECT_EQ(in0.size(), 16u);
  EXPECT_EQ(in0.address(), reinterpret_cast<uintptr_t>(a.data()));
  EXPECT_EQ(in0.arg_index(), 0u);
  const auto& in1 = header.input(1);
  EXPECT_EQ(in1.data_type(), toolkit::dumpdata::DT_BF16);
  EXPECT_EQ(in1.format(), toolkit::dumpdata::FORMAT_ND);
  EXPECT_EQ(in1.size(), 6u);
  EXPECT_EQ(in1.address(), reinterpret_cast<uintptr_t>(b.data()));
  const auto& o = header.output(0);
  EXPECT_EQ(o.data_type(), toolkit::dumpdata::DT_INT32);
  EXPECT_EQ(o.format(), toolkit::dumpdata::FORMAT_ND);
  EXPECT_EQ(o.size(), 16u);
  EXPECT_EQ(o.address(), reinterpret_cast<uintptr_t>(out.data()));
  EXPECT_EQ(o.arg_index(), 0u);
  EXPECT_EQ(o.original_op().name(), "relu1");
  EXPECT_EQ(o.original_op().output_index(), 0u);
  EXPECT_EQ(o.original_op().data_type(), toolkit::dumpdata::DT_INT32);
  EXPECT_EQ(o.original_op().format(), toolkit::dumpdata::FORMAT_ND);
  ASSERT_EQ(header.attr_size(), 2);
  EXPECT_EQ(header.attr(1).value(), "conv1,relu1");
  // The payloads are the tensors' bytes, NaN and Inf bit for bit.
  EXPECT_EQ(parsed->inputs[0],
            std::string(static_cast<const char*>(a.data()), a.ByteSize()));
  EXPECT_EQ(parsed->inputs[1],
            std::string(static_cast<const char*>(b.data()), b.ByteSize()));
  EXPECT_EQ(parsed->outputs[0],
            std::string(static_cast<const char*>(out.data()), out.ByteSize()));
}

TEST(StatsPayloadTest, EveryTensorKindAndNanInfCase) {
  const Tensor f32 =
      FloatTensor(DType::kFloat32, {5}, {1, -2, kInf, -kInf, kNan});
  const Tensor nans = FloatTensor(DType::kFloat32, {2}, {kNan, kNan});
  const Tensor f16 = FloatTensor(DType::kFloat16, {1, 2, 2, 2},
                                 {1, -2, kInf, kNan, 0, 65504, -65504, 0.5f});
  const Tensor bf16 = FloatTensor(DType::kBFloat16, {3}, {1.5f, -kInf, 2});
  const Tensor i32 = FloatTensor(DType::kInt32, {2}, {4, -6});
  const Tensor empty = FloatTensor(DType::kFloat32, {0, 3}, {});
  const Tensor scalar = FloatTensor(DType::kFloat32, {}, {3.9621367f});
  RecordSpec spec;
  spec.directory = "0/net/1";
  spec.op_type = "Op";
  spec.op_name = "op";
  const std::vector<const Tensor*> tensors = {&f32, &nans,  &f16,   &bf16,
                                              &i32, &empty, &scalar};
  for (size_t i = 0; i < tensors.size(); ++i) {
    spec.tensors.push_back({i < 2, static_cast<uint32_t>(i < 2 ? i : i - 2),
                            tensors[i]->info(), "op"});
  }
  std::unique_ptr<const Payload> payload = FindPayload("stats")->make({});
  WriteJob job;
  RenderedFile file = Render(*payload, spec, tensors, job);
  EXPECT_EQ(file.form, RecordFile::kStatsCsv);
  EXPECT_EQ(file.suffix(), ".csv");
  EXPECT_EQ(file.head,
            std::string(kDefaultStatsCsvHeader) + "\n" +
                "Input,0,20,DT_FLOAT,ND,5,inf,-inf,nan,5,1,1,1\n"
                "Input,1,8,DT_FLOAT,ND,2,nan,nan,nan,2,2,0,0\n"
                "Output,0,16,DT_FLOAT16,NCHW,1x2x2x2,inf,-65504,nan,8,1,0,1\n"
                "Output,1,6,DT_BF16,ND,3,2,-inf,-inf,3,0,1,0\n"
                "Output,2,8,DT_INT32,ND,2,4,-6,-1,2,0,0,0\n"
                "Output,3,0,DT_FLOAT,ND,0x3,NA,NA,NA,0,0,0,0\n"
                "Output,4,4,DT_FLOAT,ND,,3.96214,3.96214,3.96214,1,0,0,0\n");
}

// uint64 values above the int64 range keep their type in the file and their
// value in the statistics.
TEST(PayloadTest, UnsignedTensorsKeepTheirTypeAndValues) {
  Tensor u64(DType::kUInt64, Shape({3}));
  const uint64_t values[] = {uint64_t{1} << 63, 5, 1000};
  std::memcpy(u64.data(), values, sizeof(values));
  Tensor u16(DType::kUInt16, Shape({2}));
  u16.as<uint16_t>()[0] = 65535;
  u16.as<uint16_t>()[1] = 1;
  RecordSpec spec;
  spec.directory = "0/net/1";
  spec.op_type = "Max";
  spec.op_name = "max";
  spec.tensors = {{true, 0, u64.info(), ""}, {false, 0, u16.info(), "max"}};
  WriteJob job;
  RenderedFile file =
      Render(*FindPayload("tensor")->make({}), spec, {&u64, &u16}, job);
  absl::StatusOr<DumpFileContents> parsed = ParseDumpFile(Bytes(file));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->header.input(0).data_type(), toolkit::dumpdata::DT_UINT64);
  EXPECT_EQ(parsed->header.input(0).size(), 24u);
  EXPECT_EQ(parsed->header.output(0).data_type(), toolkit::dumpdata::DT_UINT16);
  absl::StatusOr<Tensor> back =
      LogicalTensorOf(parsed->header.input(0), parsed->inputs[0]);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->dtype(), DType::kUInt64);
  EXPECT_EQ(back->as<uint64_t>()[0], uint64_t{1} << 63);

  WriteJob stats_job;
  file = Render(*FindPayload("stats")->make({}), spec, {&u64, &u16}, stats_job);
  EXPECT_EQ(file.head, std::string(kDefaultStatsCsvHeader) + "\n" +
                           "Input,0,24,DT_UINT64,ND,3,9223372036854775808,5,"
                           "3.07446e+18,3,0,0,0\n"
                           "Output,0,4,DT_UINT16,ND,2,65535,1,32768,2,0,0,0\n");
}

TEST(ChecksumPayloadTest, ACsvOfCountAndChecksumOnly) {
  const PayloadKind* checksum = FindPayload("checksum");
  ASSERT_NE(checksum, nullptr);
  EXPECT_EQ(checksum->file, RecordFile::kStatsCsv);
  EXPECT_FALSE(checksum->takes_stats_columns);
  EXPECT_FALSE(checksum->holds_tensor_data);
  const Tensor a = FloatTensor(DType::kFloat16, {1, 2, 2, 2},
                               {1, -2, kInf, kNan, 0, 65504, -65504, 0.5f});
  const Tensor b = FloatTensor(DType::kBFloat16, {3}, {1.5f, -kInf, 2});
  const Tensor out = FloatTensor(DType::kFloat32, {0, 3}, {});
  WriteJob job;
  RenderedFile file =
      Render(*checksum->make({}), TwoInOneOut(a, b, out), {&a, &b, &out}, job);
  EXPECT_EQ(file.form, RecordFile::kStatsCsv);
  EXPECT_EQ(file.head,
            "Input/Output,Index,Data Size,Data Type,Format,Shape,Count,"
            "Checksum\n"
            "Input,0,16,DT_FLOAT16,NCHW,1x2x2x2,8," +
                fmt::format("{:016x}", TensorChecksum(a.view())) +
                "\n"
                "Input,2,6,DT_BF16,ND,3,3," +
                fmt::format("{:016x}", TensorChecksum(b.view())) +
                "\n"
                "Output,0,0,DT_FLOAT,ND,0x3,0,2d06800538d394c2\n");
  // The same bytes as a stats dump's Checksum column.
  EXPECT_EQ(TensorChecksum(a.view()), ComputeStats(a.view(), true).checksum);
}

TEST(ChecksumPayloadTest, TheConfigAcceptsItAndKeepsDumpStatsForStats) {
  const std::string dir = testing::TempDir();
  const std::string path = dir + "/checksum_acl.json";
  std::ofstream(path) << R"({"dump": {"dump_path": ")" << dir
                      << R"(", "dump_list": [{"model_name": "m"}], )"
                      << R"("dump_data": "checksum"}})";
  absl::StatusOr<DumpConfig> config = LoadDumpConfigFile(path);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->payload().name, "checksum");
  EXPECT_NE(DescribeDumpConfig(*config).find("checksum"), std::string::npos);
  std::ofstream(path) << R"({"dump": {"dump_path": ")" << dir
                      << R"(", "dump_list": [{"model_name": "m"}], )"
                      << R"("dump_data": "checksum", "dump_stats": ["Max"]}})";
  absl::Status refused = LoadDumpConfigFile(path).status();
  EXPECT_NE(refused.message().find("dump.dump_stats: needs \"dump_data\": "
                                   "\"stats\""),
            std::string::npos)
      << refused;
}

TEST(PayloadTest, TheConfigChoosesThePayloadOnce) {
  DumpConfig config;
  config.data = FindPayload("stats");
  RecordSpec spec;
  spec.tensors = {{false, 0, TensorInfo{DType::kFloat32, Shape({256})}, ""}};
  // Stats jobs hold a summary per tensor, tensor jobs the bytes.
  EXPECT_LT(config.payload().make({})->JobBytes(spec), 256 * 4u);
  config.data = nullptr;  // not given: tensors
  EXPECT_EQ(&config.payload(), FindPayload("tensor"));
  EXPECT_EQ(config.payload().make({})->JobBytes(spec), 256 * 4u + 8);
}

TEST(PayloadTest, EveryPayloadIsRegisteredOnceAndComplete) {
  EXPECT_EQ(&DefaultPayload(), FindPayload("tensor"));
  std::set<std::string_view> names;
  for (const PayloadKind* kind : Payloads()) {
    SCOPED_TRACE(kind->name);
    EXPECT_TRUE(names.insert(kind->name).second);
    EXPECT_EQ(FindPayload(kind->name), kind);
    ASSERT_NE(kind->make, nullptr);
    ASSERT_NE(kind->estimate_bytes, nullptr);
    EXPECT_NE(kind->make({}), nullptr);
    // A record's estimate grows with its tensors.
    EXPECT_LT(kind->estimate_bytes({1, 4, 100}),
              kind->estimate_bytes({4, 400, 100}));
  }
  EXPECT_EQ(FindPayload("histogram_of_nothing"), nullptr);
  EXPECT_EQ(FindPayload(""), nullptr);
}

}  // namespace
}  // namespace acldump::dump
