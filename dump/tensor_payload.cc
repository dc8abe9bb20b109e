// dump_data tensor: each record is a dump file (8-byte header length, a
// DumpData header, the raw tensors). The job holds each tensor's address
// first, then the tensors' bytes.
#include <cstring>

#include "base/strings.h"
#include "dump/format/data_type.h"
#include "dump/format/dump_data.pb.h"
#include "dump/format/dump_file.h"
#include "dump/payload.h"

namespace acldump::dump {
namespace {

using DumpProto = toolkit::dumpdata::DumpData;
using toolkit::dumpdata::OutputDataType;
using toolkit::dumpdata::OutputFormat;

template <typename TensorProto>
void Describe(const TensorInfo& info, TensorProto* proto) {
  proto->set_data_type(static_cast<OutputDataType>(ToDumpDataType(info.dtype)));
  proto->set_format(static_cast<OutputFormat>(FormatOf(info)));
  for (int64_t dim : info.shape.dims()) {
    proto->mutable_shape()->add_dim(static_cast<uint64_t>(dim));
    proto->mutable_original_shape()->add_dim(static_cast<uint64_t>(dim));
  }
  proto->set_size(info.ByteSize());
}

// The header every file of a record shares; the writer sets the time and the
// addresses per file.
DumpProto HeaderTemplate(const RecordSpec& spec) {
  DumpProto header;
  header.set_version(std::string(kDumpFormatVersion));
  header.set_op_name(spec.op_name);
  for (const RecordTensor& tensor : spec.tensors) {
    if (tensor.is_input) {
      Describe(tensor.info, header.add_input());
      continue;
    }
    auto* out = header.add_output();
    Describe(tensor.info, out);
    auto* original = out->mutable_original_op();
    original->set_name(tensor.original_op);
    original->set_output_index(tensor.index);
    original->set_data_type(out->data_type());
    original->set_format(out->format());
  }
  for (const auto& [name, value] : spec.attrs) {
    auto* attr = header.add_attr();
    attr->set_name(name);
    attr->set_value(value);
  }
  return header;
}

class TensorRecordRenderer final : public JobRenderer {
 public:
  explicit TensorRecordRenderer(RecordSpec spec)
      : spec_(std::move(spec)), header_(HeaderTemplate(spec_)) {
    for (const RecordTensor& tensor : spec_.tensors) {
      sizes_.push_back(tensor.info.ByteSize());
    }
  }

  absl::Status Render(const WriteJob& job, RenderedFile& file) const override {
    spec_.Place(job, RecordFile::kDumpFile, file);
    const std::byte* data = job.buffer.data();
    const size_t addresses = sizes_.size() * sizeof(uint64_t);
    size_t offset = addresses;
    for (size_t size : sizes_) offset += size;
    if (offset != job.used) {
      return absl::InternalError(
          StrCat("dump job holds ", job.used, " bytes, ", offset, " expected"));
    }
    DumpProto header = header_;
    header.set_dump_time(job.timestamp_us);
    for (size_t i = 0; i < sizes_.size(); ++i) {
      uint64_t address;
      std::memcpy(&address, data + i * sizeof(uint64_t), sizeof(address));
      const bool input = i < static_cast<size_t>(header.input_size());
      if (input) {
        header.mutable_input(static_cast<int>(i))->set_address(address);
      } else {
        header.mutable_output(static_cast<int>(i) - header.input_size())
            ->set_address(address);
      }
    }
    file.head = EncodeDumpFilePrefix(header);
    offset = addresses;
    for (size_t size : sizes_) {
      file.payloads.emplace_back(reinterpret_cast<const char*>(data) + offset,
                                 size);
      offset += size;
    }
    return absl::OkStatus();
  }

 private:
  const RecordSpec spec_;
  const DumpProto header_;
  std::vector<size_t> sizes_;
};

class TensorPayload final : public Payload {
 public:
  size_t JobBytes(const RecordSpec& spec) const override {
    size_t bytes = spec.tensors.size() * sizeof(uint64_t);
    for (const RecordTensor& tensor : spec.tensors) {
      bytes += tensor.info.ByteSize();
    }
    return bytes;
  }
  void Begin(size_t tensors, WriteJob& job) const override {
    job.used = tensors * sizeof(uint64_t);
  }
  void Capture(size_t slot, const TensorView& view,
               WriteJob& job) const override {
    const uint64_t address = reinterpret_cast<uintptr_t>(view.data);
    std::memcpy(job.buffer.data() + slot * sizeof(uint64_t), &address,
                sizeof(address));
    const size_t bytes = view.ByteSize();
    if (bytes > 0) std::memcpy(job.buffer.data() + job.used, view.data, bytes);
    job.used += bytes;
  }
  std::shared_ptr<const JobRenderer> MakeRenderer(
      RecordSpec spec) const override {
    return std::make_shared<TensorRecordRenderer>(std::move(spec));
  }
};

std::unique_ptr<const Payload> MakeTensorPayload(const PayloadOptions&) {
  return std::make_unique<TensorPayload>();
}

// A header, then the tensors.
uint64_t EstimateDumpFile(const RecordEstimate& record) {
  return record.header_bytes + record.data_bytes;
}

}  // namespace

// extern: payload.cc registers it.
extern const PayloadKind kTensorPayload = {
    .name = "tensor",
    .file = RecordFile::kDumpFile,
    .holds_tensor_data = true,
    .estimate_bytes = EstimateDumpFile,
    .make = MakeTensorPayload,
};

}  // namespace acldump::dump
