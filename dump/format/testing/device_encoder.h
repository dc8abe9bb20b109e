// A device-layout encoder for tests: logical tensors into the NPU's layouts,
// written from the layouts' public description and independently of the
// reader (dump/format/device_layout): it walks the device tensor and asks
// which logical element each position holds, where the reader walks the
// logical tensor. Padding is zero.
#ifndef ACLDUMP_DUMP_FORMAT_TESTING_DEVICE_ENCODER_H_
#define ACLDUMP_DUMP_FORMAT_TESTING_DEVICE_ENCODER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace acldump::dump::testing {

struct EncodedDeviceTensor {
  std::vector<uint64_t> shape;  // device shape
  std::string bytes;
};

// `logical` is row-major in `shape` (NCHW for the 4-D image formats, NCDHW
// for the 5-D ones, [..., H, W] for FRACTAL_NZ; the weight formats take
// [N, C, H, W] / [N, C, D, H, W]; FRACTAL_ZN_LSTM takes the [4·hidden,
// input + hidden] weight of an LSTM). `c0` is the cube size, `groups` the
// convolution group count of FRACTAL_Z. Aborts on a format it does not know.
EncodedDeviceTensor EncodeDeviceLayout(int32_t format,
                                       const std::vector<int64_t>& shape,
                                       size_t element_size,
                                       std::string_view logical, int64_t c0,
                                       int64_t groups = 1);

}  // namespace acldump::dump::testing

#endif  // ACLDUMP_DUMP_FORMAT_TESTING_DEVICE_ENCODER_H_
