#include "tools/common/array_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "dump/format/testing/dump_test_util.h"
#include "kernels/npy.h"

namespace acldump::tools {
namespace {

using dump::testing::NewTempDir;
using ::testing::HasSubstr;

TEST(ParseTensorFileNameTest, Forms) {
  TensorFileName n = ParseTensorFileName("conv1");
  EXPECT_EQ(n.op, "conv1");
  EXPECT_FALSE(n.explicit_tensor);
  EXPECT_FALSE(n.is_input);
  EXPECT_EQ(n.position, 0u);

  n = ParseTensorFileName("conv1.output.2");
  EXPECT_EQ(n.op, "conv1");
  EXPECT_TRUE(n.explicit_tensor);
  EXPECT_EQ(n.position, 2u);
  EXPECT_FALSE(n.timestamp.has_value());

  n = ParseTensorFileName("conv1.input.1.1700000000123456");
  EXPECT_EQ(n.op, "conv1");
  EXPECT_TRUE(n.is_input);
  EXPECT_EQ(n.position, 1u);
  ASSERT_TRUE(n.timestamp.has_value());
  EXPECT_EQ(*n.timestamp, 1700000000123456u);

  // Dots in the op name; a dump file name as the op.
  n = ParseTensorFileName("layer1.0.conv1.output.0");
  EXPECT_EQ(n.op, "layer1.0.conv1");
  n = ParseTensorFileName("Conv.conv1.3.0.0000000000000009.output.0");
  EXPECT_EQ(n.op, "Conv.conv1.3.0.0000000000000009");
  EXPECT_EQ(n.position, 0u);
  n = ParseTensorFileName("a.output.x");
  EXPECT_EQ(n.op, "a.output.x");
  EXPECT_FALSE(n.explicit_tensor);
}

// Arrays numpy writes (made here byte for byte as numpy lays them out).
std::string NpyBytes(const std::string& descr, const std::string& shape,
                     bool fortran, const std::string& data) {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

std::string Floats(std::initializer_list<float> values) {
  std::string out;
  for (float v : values) out.append(reinterpret_cast<const char*>(&v), 4);
  return out;
}

TEST(DecodeArrayTest, FortranOrderIsTransposed) {
  // [[1, 2, 3], [4, 5, 6]] in Fortran order: 1 4 2 5 3 6.
  absl::StatusOr<Tensor> t =
      DecodeArray(NpyBytes("<f4", "(2, 3)", true, Floats({1, 4, 2, 5, 3, 6})));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape().dims(), (std::vector<int64_t>{2, 3}));
  const float* v = t->as<float>();
  EXPECT_EQ(std::vector<float>(v, v + 6),
            (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // Three dimensions: element (i, j, k) at i + 2j + 4k.
  std::string data;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) data += Floats({float(100 * i + 10 * j + k)});
  t = DecodeArray(NpyBytes("<f4", "(2, 2, 2)", true, data));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->as<float>()[1], 1);    // (0,0,1)
  EXPECT_EQ(t->as<float>()[2], 10);   // (0,1,0)
  EXPECT_EQ(t->as<float>()[4], 100);  // (1,0,0)
  // C order is unchanged; garbage is an error.
  t = DecodeArray(NpyBytes("<f4", "(2, 3)", false, Floats({1, 4, 2, 5, 3, 6})));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->as<float>()[1], 4);
  EXPECT_FALSE(DecodeArray("not an array").ok());
  EXPECT_FALSE(
      DecodeArray(NpyBytes("<f4", "(2, 3)", true, Floats({1, 2}))).ok());
}

// A ZIP archive (stored members), as np.savez writes it.
std::string StoredZip(
    const std::vector<std::pair<std::string, std::string>>& members) {
  auto le = [](uint64_t v, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
    return s;
  };
  auto crc = [](const std::string& data) {
    uint32_t c = 0xFFFFFFFF;
    for (unsigned char b : data) {
      c ^= b;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320 & -(c & 1));
    }
    return ~c;
  };
  std::string out, central;
  for (const auto& [name, data] : members) {
    const uint64_t offset = out.size();
    out += le(0x04034b50, 4) + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4) +
           le(crc(data), 4) + le(data.size(), 4) + le(data.size(), 4) +
           le(name.size(), 2) + le(0, 2) + name + data;
    central += le(0x02014b50, 4) + le(20, 2) + le(20, 2) + le(0, 2) + le(0, 2) +
               le(0, 4) + le(crc(data), 4) + le(data.size(), 4) +
               le(data.size(), 4) + le(name.size(), 2) + le(0, 2) + le(0, 2) +
               le(0, 2) + le(0, 2) + le(0, 4) + le(offset, 4) + name;
  }
  const uint64_t directory = out.size();
  out += central;
  out += le(0x06054b50, 4) + le(0, 2) + le(0, 2) + le(members.size(), 2) +
         le(members.size(), 2) + le(central.size(), 4) + le(directory, 4) +
         le(0, 2);
  return out;
}

TEST(NpzTest, ListsAndReadsStoredMembers) {
  const std::string dir = NewTempDir("npz");
  const std::string path = dir + "/refs.npz";
  {
    std::ofstream file(path, std::ios::binary);
    file << StoredZip(
        {{"conv1.npy", NpyBytes("<f4", "(2,)", false, Floats({1, 2}))},
         {"notes.txt", "x"},
         {"relu1.output.0.npy", NpyBytes("<f4", "(1,)", false, Floats({3}))}});
  }
  absl::StatusOr<std::vector<NpzMember>> members = ListNpz(path);
  ASSERT_TRUE(members.ok()) << members.status();
  ASSERT_EQ(members->size(), 2u);
  EXPECT_EQ((*members)[0].name, "conv1");
  EXPECT_EQ((*members)[1].name, "relu1.output.0");
  absl::StatusOr<Tensor> t = ReadNpzMember(path, (*members)[0]);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->as<float>()[1], 2);
  NpzMember corrupt = (*members)[0];
  corrupt.crc32 ^= 1;
  EXPECT_THAT(ReadNpzMember(path, corrupt).status().message(),
              HasSubstr("CRC-32 mismatch"));
  {
    std::ofstream file(dir + "/bad.npz", std::ios::binary);
    file << "PK not really";
  }
  EXPECT_FALSE(ListNpz(dir + "/bad.npz").ok());
  EXPECT_FALSE(ListNpz(dir).ok());  // a folder
}

// np.savez_compressed (deflate) and np.savez (ZIP64 local headers), written
// by numpy itself when it is there.
TEST(NpzTest, ReadsWhatNumpyWrites) {
  const std::string dir = NewTempDir("numpy_npz");
  const std::string script =
      "import numpy as np, sys\n"
      "a = np.arange(12, dtype=np.float32).reshape(3, 4)\n"
      "np.savez_compressed(sys.argv[1] + '/c.npz', x=a, "
      "y=np.asfortranarray(a))\n"
      "np.savez(sys.argv[1] + '/s.npz', x=a)\n";
  {
    std::ofstream file(dir + "/make.py");
    file << script;
  }
  const std::string command =
      "/usr/bin/python3 " + dir + "/make.py " + dir + " 2>/dev/null";
  if (std::system(command.c_str()) != 0) {
    GTEST_SKIP() << "python3 with numpy is not available";
  }
  for (const char* name : {"/c.npz", "/s.npz"}) {
    absl::StatusOr<std::vector<NpzMember>> members = ListNpz(dir + name);
    ASSERT_TRUE(members.ok()) << members.status();
    for (const NpzMember& m : *members) {
      absl::StatusOr<Tensor> t = ReadNpzMember(dir + name, m);
      ASSERT_TRUE(t.ok()) << name << " " << m.name << ": " << t.status();
      EXPECT_EQ(t->shape().dims(), (std::vector<int64_t>{3, 4}));
      EXPECT_EQ(t->as<float>()[1], 1) << m.name;
      EXPECT_EQ(t->as<float>()[4], 4) << m.name;
    }
  }
}

}  // namespace
}  // namespace acldump::tools
