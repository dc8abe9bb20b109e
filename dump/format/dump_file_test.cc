#include "dump/format/dump_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>

#include "dump/format/pack.h"
#include "kernels/half.h"

namespace acldump::dump {
namespace {

using ::testing::HasSubstr;
using toolkit::dumpdata::DumpData;

std::string Bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

std::string LengthPrefix(uint64_t length) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(length >> (8 * i));
  return out;
}

// Any header, data fields and all, behind a length prefix: the writer-side
// encoder would drop data fields, so malformed files are built by hand.
std::string RawFile(const DumpData& header, std::string_view payloads = "") {
  const std::string serialized = header.SerializeAsString();
  return LengthPrefix(serialized.size()) + serialized + std::string(payloads);
}

std::string FloatBytes(std::initializer_list<float> values) {
  std::string out;
  for (float v : values) {
    char b[4];
    std::memcpy(b, &v, 4);
    out.append(b, 4);
  }
  return out;
}

// version "2.0"; one output DT_FLOAT, ND, shape [2], size 8.
DumpData TinyHeader() {
  DumpData header;
  header.set_version("2.0");
  auto* out = header.add_output();
  out->set_data_type(toolkit::dumpdata::DT_FLOAT);
  out->set_format(toolkit::dumpdata::FORMAT_ND);
  out->mutable_shape()->add_dim(2);
  out->set_size(8);
  return header;
}

// Hand-computed: version (0A 03 "2.0"), output (1A 0B: data_type 08 01,
// format 10 02, shape 1A 03 {packed dim 0A 01 02}, size 30 08) = 18 bytes.
const std::string kTinyPrefix =
    Bytes({0x12, 0,    0,    0,    0,    0,    0,   0,  // header_len 18
           0x0A, 0x03, '2',  '.',  '0',                 // version
           0x1A, 0x0B, 0x08, 0x01, 0x10, 0x02,          // output: dtype, fmt
           0x1A, 0x03, 0x0A, 0x01, 0x02, 0x30, 0x08});  // shape [2], size 8
const std::string kTinyPayload =
    Bytes({0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0xC0});  // 1.0f, -2.0f
const std::string kTinyFile = kTinyPrefix + kTinyPayload;

TEST(DumpFileTest, GoldenBytesOfATinyFile) {
  EXPECT_EQ(EncodeDumpFilePrefix(TinyHeader()), kTinyPrefix);
  DumpFileContents contents;
  contents.header = TinyHeader();
  contents.header.mutable_output(0)->set_size(0);  // EncodeDumpFile sets it
  contents.outputs = {FloatBytes({1.0f, -2.0f})};
  absl::StatusOr<std::string> file = EncodeDumpFile(contents);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(*file, kTinyFile);
  EXPECT_EQ(kTinyFile.size(), 34u);
}

TEST(DumpFileTest, ParsesTheTinyFile) {
  absl::StatusOr<DumpFileContents> parsed = ParseDumpFile(kTinyFile);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_FALSE(parsed->legacy_format);
  EXPECT_EQ(parsed->header.version(), "2.0");
  ASSERT_EQ(parsed->header.output_size(), 1);
  EXPECT_EQ(parsed->header.output(0).size(), 8u);
  EXPECT_TRUE(parsed->inputs.empty());
  ASSERT_EQ(parsed->outputs.size(), 1u);
  EXPECT_EQ(parsed->outputs[0], kTinyPayload);

  absl::StatusOr<Tensor> tensor =
      PayloadToTensor(parsed->header.output(0).data_type(),
                      parsed->header.output(0).shape(), parsed->outputs[0]);
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_EQ(tensor->dtype(), DType::kFloat32);
  EXPECT_EQ(tensor->shape(), (acldump::Shape{2}));
  EXPECT_EQ(tensor->as<float>()[0], 1.0f);
  EXPECT_EQ(tensor->as<float>()[1], -2.0f);
}

TEST(DumpFileTest, RoundTripsEveryKindOfPayloadInOrder) {
  DumpFileContents contents;
  DumpData& h = contents.header;
  h.set_dump_time(1700000000123456);
  h.set_op_name("conv1bn1relu1");
  h.set_dfx_message("kernel failed: bad shape");
  auto* attr = h.add_attr();
  attr->set_name("strides");
  attr->set_value("[1,1]");
  auto* in0 = h.add_input();
  in0->set_data_type(toolkit::dumpdata::DT_FLOAT16);
  in0->set_format(toolkit::dumpdata::FORMAT_NCHW);
  for (uint64_t d : {1, 1, 2, 3}) in0->mutable_shape()->add_dim(d);
  in0->set_input_type(2);
  auto* in1 = h.add_input();
  in1->set_data_type(toolkit::dumpdata::DT_STRING);  // no fixed size
  auto* out0 = h.add_output();
  out0->set_data_type(toolkit::dumpdata::DT_INT64);
  out0->mutable_shape();  // rank 0: one element
  out0->mutable_original_op()->set_name("relu1");
  h.add_buffer();
  auto* space = h.add_space();
  space->set_arg_index(3);
  contents.inputs = {std::string(12, '\x3C'), "abc"};
  contents.outputs = {std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8)};
  contents.buffers = {std::string(5, 'b')};
  contents.spaces = {std::string(7, 's')};

  absl::StatusOr<std::string> file = EncodeDumpFile(contents);
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<DumpFileContents> parsed = ParseDumpFile(*file);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->inputs, contents.inputs);
  EXPECT_EQ(parsed->outputs, contents.outputs);
  EXPECT_EQ(parsed->buffers, contents.buffers);
  EXPECT_EQ(parsed->spaces, contents.spaces);
  EXPECT_EQ(parsed->header.version(), "2.0");
  EXPECT_EQ(parsed->header.dump_time(), 1700000000123456u);
  EXPECT_EQ(parsed->header.op_name(), "conv1bn1relu1");
  EXPECT_EQ(parsed->header.dfx_message(), "kernel failed: bad shape");
  EXPECT_EQ(parsed->header.attr(0).value(), "[1,1]");
  EXPECT_EQ(parsed->header.input(0).size(), 12u);
  EXPECT_EQ(parsed->header.input(0).input_type(), 2u);
  EXPECT_EQ(parsed->header.input(1).size(), 3u);
  EXPECT_EQ(parsed->header.output(0).original_op().name(), "relu1");
  EXPECT_EQ(parsed->header.space(0).arg_index(), 3u);
  EXPECT_EQ(parsed->header.space(0).size(), 7u);
}

TEST(DumpFileTest, EncodeLeavesDataFieldsOut) {
  DumpData header = TinyHeader();
  header.mutable_output(0)->set_data(kTinyPayload);
  EXPECT_EQ(EncodeDumpFilePrefix(header), kTinyPrefix);
  // The caller's message is untouched.
  EXPECT_EQ(header.output(0).data(), kTinyPayload);
}

TEST(DumpFileTest, EncodeDumpFileRejectsMismatchedPayloadCounts) {
  DumpFileContents contents;
  contents.header = TinyHeader();
  absl::StatusOr<std::string> file = EncodeDumpFile(contents);
  ASSERT_FALSE(file.ok());
  EXPECT_THAT(file.status().message(), HasSubstr("1 outputs"));
}

TEST(DumpFileTest, EveryTruncationFailsCleanly) {
  for (size_t length = 0; length < kTinyFile.size(); ++length) {
    absl::StatusOr<DumpFileContents> parsed =
        ParseDumpFile(std::string_view(kTinyFile).substr(0, length));
    EXPECT_FALSE(parsed.ok()) << "accepted a file truncated to " << length;
  }
  EXPECT_THAT(
      ParseDumpFile(kTinyFile.substr(0, 5)).status().message(),
      HasSubstr("file is 5 bytes, too short for the 8-byte header_len"));
  EXPECT_THAT(ParseDumpFile(kTinyFile.substr(0, 20)).status().message(),
              HasSubstr("header_len 18 exceeds the file (20 bytes)"));
  EXPECT_THAT(ParseDumpFile(kTinyFile.substr(0, 30)).status().message(),
              HasSubstr("output 0: size 8 runs past the end of the file (4 of "
                        "4 payload bytes left"));
}

TEST(DumpFileTest, TrailingBytesAreAnError) {
  absl::StatusOr<DumpFileContents> parsed = ParseDumpFile(kTinyFile + "x");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(),
              HasSubstr("sizes do not add up: 8 + header_len 18 + payload "
                        "sizes 8 = 34 but the file is 35 bytes"));
}

TEST(DumpFileTest, HugeHeaderLen) {
  std::string file = kTinyFile;
  file.replace(0, 8, LengthPrefix(std::numeric_limits<uint64_t>::max()));
  EXPECT_THAT(ParseDumpFile(file).status().message(),
              HasSubstr("header_len 18446744073709551615 exceeds the file (34 "
                        "bytes)"));
  file.replace(0, 8, LengthPrefix(27));  // one past the end
  EXPECT_THAT(ParseDumpFile(file).status().message(),
              HasSubstr("header_len 27 exceeds the file (34 bytes)"));
}

TEST(DumpFileTest, HeaderThatDoesNotParse) {
  const std::string file = LengthPrefix(3) + Bytes({0xFF, 0xFF, 0xFF});
  EXPECT_THAT(ParseDumpFile(file).status().message(),
              HasSubstr("the header (3 bytes at offset 8) does not parse"));
}

TEST(DumpFileTest, SizeMustMatchTheShape) {
  DumpData header;
  header.set_version("2.0");
  auto* out = header.add_output();
  out->set_data_type(toolkit::dumpdata::DT_FLOAT);
  for (uint64_t d : {1, 3, 224, 224}) out->mutable_shape()->add_dim(d);
  out->set_size(400);
  EXPECT_THAT(
      ParseDumpFile(RawFile(header, std::string(400, '\0'))).status().message(),
      HasSubstr("output 0: size 400 but DT_FLOAT[1,3,224,224] needs "
                "602112"));
}

TEST(DumpFileTest, ElementSizesOfFixedSizeTypes) {
  struct Case {
    toolkit::dumpdata::OutputDataType type;
    uint64_t size;
  };
  using namespace toolkit::dumpdata;  // NOLINT
  for (Case c :
       {Case{DT_FLOAT, 4}, Case{DT_FLOAT16, 2}, Case{DT_BF16, 2},
        Case{DT_DOUBLE, 8}, Case{DT_INT8, 1}, Case{DT_UINT8, 1},
        Case{DT_BOOL, 1}, Case{DT_INT16, 2}, Case{DT_UINT16, 2},
        Case{DT_INT32, 4}, Case{DT_UINT32, 4}, Case{DT_INT64, 8},
        Case{DT_UINT64, 8}, Case{DT_COMPLEX64, 8}, Case{DT_COMPLEX128, 16}}) {
    EXPECT_EQ(DumpDataTypeSize(c.type), c.size) << c.type;
    DumpData header;
    header.set_version("2.0");
    auto* in = header.add_input();
    in->set_data_type(c.type);
    for (uint64_t d : {2, 3}) in->mutable_shape()->add_dim(d);
    in->set_size(6 * c.size);
    EXPECT_TRUE(
        ParseDumpFile(RawFile(header, std::string(6 * c.size, 'x'))).ok())
        << c.type;
    in->set_size(6 * c.size + 1);
    EXPECT_THAT(ParseDumpFile(RawFile(header, std::string(6 * c.size + 1, 'x')))
                    .status()
                    .message(),
                HasSubstr(std::to_string(6 * c.size)));
  }
  for (auto type : {DT_UNDEFINED, DT_STRING, DT_INT4, DT_UINT1, DT_RESOURCE,
                    DT_FLOAT8_E8M0}) {
    EXPECT_EQ(DumpDataTypeSize(type), std::nullopt) << type;
  }
  EXPECT_EQ(DumpDataTypeSize(-1), std::nullopt);
  EXPECT_EQ(DumpDataTypeSize(1000), std::nullopt);
}

TEST(DumpFileTest, ShapeProductOverflow) {
  DumpData header;
  header.set_version("2.0");
  auto* out = header.add_output();
  out->set_data_type(toolkit::dumpdata::DT_FLOAT);
  out->mutable_shape()->add_dim(uint64_t{1} << 32);
  out->mutable_shape()->add_dim(uint64_t{1} << 31);
  out->set_size(0);
  EXPECT_THAT(ParseDumpFile(RawFile(header)).status().message(),
              HasSubstr("output 0: DT_FLOAT[4294967296,2147483648] has more "
                        "bytes than 64 bits hold"));
  // A zero dimension makes any shape empty.
  out->mutable_shape()->add_dim(0);
  EXPECT_TRUE(ParseDumpFile(RawFile(header)).ok());
}

TEST(DumpFileTest, SizesThatWouldOverflowTheSum) {
  DumpData header;
  header.set_version("2.0");
  header.add_buffer()->set_size(4);
  header.add_buffer()->set_size(std::numeric_limits<uint64_t>::max() - 1);
  EXPECT_THAT(ParseDumpFile(RawFile(header, "abcd")).status().message(),
              HasSubstr("buffer 1: size 18446744073709551614 runs past the "
                        "end of the file (0 of 4 payload bytes left"));
  header.mutable_buffer(0)->set_size(std::numeric_limits<uint64_t>::max());
  EXPECT_THAT(ParseDumpFile(RawFile(header, "abcd")).status().message(),
              HasSubstr("buffer 0: size 18446744073709551615 runs past"));
}

TEST(DumpFileTest, DataInsideAVersion2HeaderIsAnError) {
  DumpData header = TinyHeader();
  header.mutable_output(0)->set_data(kTinyPayload);
  EXPECT_THAT(ParseDumpFile(RawFile(header, kTinyPayload)).status().message(),
              HasSubstr("output 0: 8 bytes of data inside a version 2.0 "
                        "header"));
}

DumpData LegacyHeader() {
  DumpData header = TinyHeader();
  header.set_version("1.0");
  header.mutable_output(0)->set_data(kTinyPayload);
  header.add_space()->set_data("ws");
  return header;
}

TEST(DumpFileTest, LegacyWithPrefix) {
  absl::StatusOr<DumpFileContents> parsed =
      ParseDumpFile(RawFile(LegacyHeader()));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->legacy_format);
  EXPECT_EQ(parsed->outputs, std::vector<std::string>{kTinyPayload});
  EXPECT_EQ(parsed->spaces, std::vector<std::string>{"ws"});
  EXPECT_TRUE(parsed->header.output(0).data().empty());
  EXPECT_EQ(parsed->header.output(0).size(), 8u);
  EXPECT_EQ(parsed->header.space(0).size(), 2u);  // set from the data
}

TEST(DumpFileTest, LegacyWithoutPrefix) {
  absl::StatusOr<DumpFileContents> parsed =
      ParseDumpFile(LegacyHeader().SerializeAsString());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->legacy_format);
  EXPECT_EQ(parsed->outputs, std::vector<std::string>{kTinyPayload});

  // A bare version 2.0 message is not a legacy file.
  DumpData v2 = TinyHeader();
  v2.mutable_output(0)->set_data(kTinyPayload);
  EXPECT_THAT(ParseDumpFile(v2.SerializeAsString()).status().message(),
              HasSubstr("exceeds the file"));
}

TEST(DumpFileTest, LegacyErrors) {
  DumpData header = LegacyHeader();
  EXPECT_THAT(ParseDumpFile(RawFile(header, "zz")).status().message(),
              HasSubstr("header version \"1.0\" is not \"2.0\" (a legacy "
                        "file, data inside the header) but 2 bytes follow"));
  header.mutable_output(0)->set_size(12);
  EXPECT_THAT(ParseDumpFile(RawFile(header)).status().message(),
              HasSubstr("output 0: size 12 but its data holds 8 bytes"));
  header.mutable_output(0)->set_size(0);
  header.mutable_output(0)->set_data("1234");
  EXPECT_THAT(ParseDumpFile(RawFile(header)).status().message(),
              HasSubstr("output 0: size 4 but DT_FLOAT[2] needs 8"));
}

TEST(DumpFileTest, RandomCorruptionNeverCrashes) {
  DumpFileContents contents;
  contents.header = TinyHeader();
  contents.header.add_input()->set_data_type(toolkit::dumpdata::DT_UINT8);
  contents.header.mutable_input(0)->mutable_shape()->add_dim(3);
  contents.inputs = {"abc"};
  contents.outputs = {kTinyPayload};
  const std::string valid = *EncodeDumpFile(contents);
  std::mt19937 rng(1234);
  int accepted = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string file = valid;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % file.size();
      switch (rng() % 3) {
        case 0:
          file[at] = static_cast<char>(rng());
          break;
        case 1:
          file.erase(at, 1 + rng() % 4);
          break;
        case 2:
          file.insert(at, 1, static_cast<char>(rng()));
          break;
      }
      if (file.empty()) file = "x";
    }
    absl::StatusOr<DumpFileContents> parsed = ParseDumpFile(file);
    if (!parsed.ok()) continue;
    ++accepted;
    // Whatever is accepted is self-consistent.
    uint64_t total = 0;
    for (const auto* list : {&parsed->inputs, &parsed->outputs,
                             &parsed->buffers, &parsed->spaces}) {
      for (const std::string& p : *list) total += p.size();
    }
    EXPECT_LE(total, file.size());
  }
  EXPECT_LT(accepted, 20000);
}

TEST(DumpFileTest, PayloadToTensor) {
  toolkit::dumpdata::Shape shape;
  shape.add_dim(2);
  std::string half(4, '\0');
  const uint16_t bits[2] = {FloatToHalfBits(1.5f), FloatToHalfBits(-3.0f)};
  std::memcpy(half.data(), bits, 4);
  absl::StatusOr<Tensor> tensor =
      PayloadToTensor(toolkit::dumpdata::DT_FLOAT16, shape, half);
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_EQ(tensor->dtype(), DType::kFloat16);
  EXPECT_EQ(HalfBitsToFloat(tensor->as<uint16_t>()[1]), -3.0f);

  EXPECT_THAT(PayloadToTensor(toolkit::dumpdata::DT_STRING, shape, half)
                  .status()
                  .message(),
              HasSubstr("DT_STRING"));
  EXPECT_THAT(PayloadToTensor(toolkit::dumpdata::DT_FLOAT, shape, half)
                  .status()
                  .message(),
              HasSubstr("payload is 4 bytes but DT_FLOAT[2] needs 8"));
  toolkit::dumpdata::Shape huge;
  huge.add_dim(std::numeric_limits<uint64_t>::max());
  EXPECT_FALSE(PayloadToTensor(toolkit::dumpdata::DT_INT8, huge, "").ok());
  huge.set_dim(0, uint64_t{1} << 30);
  huge.add_dim(uint64_t{1} << 30);
  EXPECT_FALSE(PayloadToTensor(toolkit::dumpdata::DT_INT8, huge, "").ok());

  toolkit::dumpdata::Shape scalar;
  absl::StatusOr<Tensor> one =
      PayloadToTensor(toolkit::dumpdata::DT_BOOL, scalar, "\x01");
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->shape().rank(), 0u);
}

TEST(DumpFileTest, FormatNames) {
  EXPECT_EQ(FormatName(0), "NCHW");
  EXPECT_EQ(FormatName(1), "NHWC");
  EXPECT_EQ(FormatName(2), "ND");
  EXPECT_EQ(FormatName(3), "NC1HWC0");
  EXPECT_EQ(FormatName(29), "FRACTAL_NZ");
  EXPECT_EQ(FormatName(30), "NCDHW");
  EXPECT_EQ(FormatName(255), "MAX");
  EXPECT_EQ(FormatName(7), "UNKNOWN(7)");
  EXPECT_EQ(FormatName(-1), "UNKNOWN(-1)");
  // The converter graph's names, with or without the enum's prefix.
  EXPECT_EQ(FormatNumber("NCHW"), 0);
  EXPECT_EQ(FormatNumber("NHWC"), 1);
  EXPECT_EQ(FormatNumber("FORMAT_FRACTAL_NZ"), 29);
  EXPECT_EQ(FormatNumber("FRACTAL_Z_C04"), 13);
  EXPECT_EQ(FormatNumber(""), std::nullopt);
  EXPECT_EQ(FormatNumber("NOT_A_FORMAT"), std::nullopt);
}

// An output's recorded original format wins over the caller's (a converter
// graph's); without one the caller's decides how a plain tensor whose shape
// reads both ways is taken.
TEST(DumpFileTest, OriginalFormatFromTheCallerWhereTheFileHasNone) {
  toolkit::dumpdata::OpOutput out;
  out.set_data_type(toolkit::dumpdata::DT_FLOAT);
  out.set_format(toolkit::dumpdata::FORMAT_NHWC);
  for (int d : {1, 2, 2, 2}) {
    out.mutable_shape()->add_dim(d);
    out.mutable_original_shape()->add_dim(d);
  }
  std::vector<float> nhwc(8);
  for (int i = 0; i < 8; ++i) nhwc[i] = float(i);  // [n][h][w][c]
  const std::string bytes(reinterpret_cast<const char*>(nhwc.data()), 32);
  absl::StatusOr<Tensor> as_stored = LogicalTensorOf(out, bytes);
  ASSERT_TRUE(as_stored.ok()) << as_stored.status();
  EXPECT_EQ(as_stored->as<float>()[1], 1.0f);
  absl::StatusOr<Tensor> nchw =
      LogicalTensorOf(out, bytes, toolkit::dumpdata::FORMAT_NCHW);
  ASSERT_TRUE(nchw.ok()) << nchw.status();
  // NCHW [0][0][0][1] is NHWC [0][0][1][0]: element 2.
  EXPECT_EQ(nchw->as<float>()[1], 2.0f);
  EXPECT_EQ(nchw->as<float>()[4], 1.0f);  // [0][1][0][0]
  out.mutable_original_op()->set_name("relu");
  out.mutable_original_op()->set_format(toolkit::dumpdata::FORMAT_NHWC);
  absl::StatusOr<Tensor> recorded =
      LogicalTensorOf(out, bytes, toolkit::dumpdata::FORMAT_NCHW);
  ASSERT_TRUE(recorded.ok()) << recorded.status();
  EXPECT_EQ(recorded->as<float>()[1], 1.0f);
}

class ReadDumpFileTest : public ::testing::Test {
 protected:
  std::filesystem::path dir_ =
      std::filesystem::path(::testing::TempDir()) / "read_dump_file_test";
  void SetUp() override { std::filesystem::create_directories(dir_); }
};

TEST_F(ReadDumpFileTest, ReadsAFile) {
  const std::string path = (dir_ / "Relu.relu1.1.0.0000000000000001").string();
  {
    std::ofstream out(path, std::ios::binary);
    out << kTinyFile;
  }
  absl::StatusOr<DumpFileContents> parsed = ReadDumpFile(path);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->outputs[0], kTinyPayload);

  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << kTinyFile.substr(0, 20);
  }
  parsed = ReadDumpFile(path);
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr(path));
  EXPECT_THAT(parsed.status().message(), HasSubstr("header_len 18 exceeds"));
}

TEST_F(ReadDumpFileTest, MissingFileAndDirectory) {
  const std::string missing = (dir_ / "missing").string();
  absl::StatusOr<DumpFileContents> parsed = ReadDumpFile(missing);
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(parsed.status().message(), HasSubstr(missing));
  parsed = ReadDumpFile(dir_.string());
  EXPECT_THAT(parsed.status().message(), HasSubstr("is not a regular file"));
}

// A packed folder: records framed in dump.pack (no index: the frames are
// scanned), each read by the name its file would have.
TEST_F(ReadDumpFileTest, HeadersOfPackedRecordsAreReadWithoutTheirTensors) {
  const std::filesystem::path folder = dir_ / "packed";
  std::filesystem::create_directories(folder);
  const std::string names[] = {"Relu.relu1.1.0.0000000000000001",
                               "Relu.relu2.2.0.0000000000000002"};
  {
    std::ofstream pack(folder / kPackFileName, std::ios::binary);
    for (const std::string& name : names) {
      pack << PackFrame(name.size(), kTinyFile.size()) << name << kTinyFile;
    }
    // A record that is not a dump file is read whole, and refused.
    pack << PackFrame(5, 3) << "Add.x"
         << "abc";
  }
  for (const std::string& name : names) {
    const std::string path = (folder / name).string();
    absl::StatusOr<DumpFileContents> header = ReadDumpFileHeader(path);
    ASSERT_TRUE(header.ok()) << header.status();
    EXPECT_TRUE(header->outputs.empty());
    EXPECT_EQ(header->header.SerializeAsString(),
              ReadDumpFile(path)->header.SerializeAsString());
  }
  absl::StatusOr<DumpFileContents> bad =
      ReadDumpFileHeader((folder / "Add.x").string());
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(
      ReadDumpFileHeader((folder / "Relu.none.3.0.3").string()).status().code(),
      absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace acldump::dump

namespace acldump::dump {
namespace {

// Device types without an acldump tensor type are read into one that holds
// every value exactly.
TEST(DumpFileTest, DeviceOnlyTypesAreWidenedExactly) {
  toolkit::dumpdata::Shape shape;
  shape.add_dim(3);
  const std::string fp8("\x38\x7E\xC4", 3);  // 1, 448, -3 in E4M3FN
  absl::StatusOr<Tensor> t =
      PayloadToTensor(toolkit::dumpdata::DT_FLOAT8_E4M3FN, shape, fp8);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DType::kFloat32);
  EXPECT_EQ(t->as<float>()[1], 448.0f);
  EXPECT_EQ(t->as<float>()[2], -3.0f);
  const std::string hif8("\x08\x6E\x18", 3);  // 1, 32768, 0.5
  t = PayloadToTensor(toolkit::dumpdata::DT_HIFLOAT8, shape, hif8);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->as<float>()[1], 32768.0f);
  EXPECT_EQ(t->as<float>()[2], 0.5f);
  t = PayloadToTensor(toolkit::dumpdata::DT_FLOAT8_E5M2, shape,
                      std::string("\x3C\x7C\x01", 3));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->as<float>()[1], INFINITY);

  // The unsigned types have tensor types of their own: read as they are.
  const uint16_t u16[3] = {0, 40000, 65535};
  t = PayloadToTensor(toolkit::dumpdata::DT_UINT16, shape,
                      std::string_view(reinterpret_cast<const char*>(u16), 6));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DType::kUInt16);
  EXPECT_EQ(t->as<uint16_t>()[2], 65535);
  const uint32_t u32[3] = {1, 0x80000000u, 0xFFFFFFFFu};
  t = PayloadToTensor(toolkit::dumpdata::DT_UINT32, shape,
                      std::string_view(reinterpret_cast<const char*>(u32), 12));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DType::kUInt32);
  EXPECT_EQ(t->as<uint32_t>()[2], 0xFFFFFFFFu);
  const uint64_t u64[3] = {1, 2, uint64_t{1} << 63};
  t = PayloadToTensor(toolkit::dumpdata::DT_UINT64, shape,
                      std::string_view(reinterpret_cast<const char*>(u64), 24));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DType::kUInt64);
  EXPECT_EQ(t->as<uint64_t>()[2], uint64_t{1} << 63);
  t = PayloadToTensor(toolkit::dumpdata::DT_UINT64, shape,
                      std::string_view(reinterpret_cast<const char*>(u64), 16));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            "payload is 16 bytes but DT_UINT64[3] needs 24");
  t = PayloadToTensor(toolkit::dumpdata::DT_HIFLOAT8, shape, "ab");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            "payload is 2 bytes but DT_HIFLOAT8[3] needs 3");
}

}  // namespace
}  // namespace acldump::dump
