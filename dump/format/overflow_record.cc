#include "dump/format/overflow_record.h"

#include "base/strings.h"
#include "dump/format/dump_data.pb.h"
#include "dump/format/dump_file.h"
#include "dump/format/dump_names.h"

namespace acldump::dump {
namespace {

constexpr size_t kDataOffset = 24;

template <typename T>
void Store(std::string& out, size_t offset, T value) {
  for (size_t i = 0; i < sizeof(T); ++i) {
    out[offset + i] = static_cast<char>(value & 0xFF);
    value = static_cast<T>(value >> 8);
  }
}

template <typename T>
T Load(std::string_view bytes, size_t offset) {
  T value = 0;
  for (size_t i = sizeof(T); i-- > 0;) {
    value = static_cast<T>((value << 8) |
                           static_cast<unsigned char>(bytes[offset + i]));
  }
  return value;
}

}  // namespace

std::string EncodeOverflowPayload(const OverflowRecord& record) {
  std::string out(kOverflowPayloadBytes, '\0');
  Store<uint32_t>(out, 0, kOverflowMagic);
  Store<uint32_t>(out, 4, kOverflowVersion);
  Store<uint32_t>(out, 8, 1);  // valid
  Store<uint32_t>(out, 12, record.acc_type);
  Store<uint32_t>(out, 16, 0);  // reserved
  Store<uint32_t>(out, 20, kOverflowDataLen);
  size_t offset = kDataOffset;
  for (uint64_t field :
       {record.model_id, record.stream_id, record.task_id, record.task_type,
        record.context_id, record.thread_id, record.status}) {
    Store<uint64_t>(out, offset, field);
    offset += 8;
  }
  return out;
}

absl::StatusOr<OverflowRecord> DecodeOverflowPayload(std::string_view bytes) {
  if (bytes.size() != kOverflowPayloadBytes) {
    return absl::InvalidArgumentError(StrCat("overflow record is ",
                                             bytes.size(), " bytes, not ",
                                             kOverflowPayloadBytes));
  }
  const uint32_t magic = Load<uint32_t>(bytes, 0);
  if (magic != kOverflowMagic) {
    return absl::InvalidArgumentError(
        fmt::format("overflow record magic is {:#010x}, not {:#010x}", magic,
                    kOverflowMagic));
  }
  const uint32_t version = Load<uint32_t>(bytes, 4);
  if (version != kOverflowVersion) {
    return absl::InvalidArgumentError(StrCat("overflow record version ",
                                             version, " is not supported (",
                                             kOverflowVersion, " is)"));
  }
  const uint32_t valid = Load<uint32_t>(bytes, 8);
  if (valid != 1) {
    return absl::InvalidArgumentError(
        StrCat("overflow record is not valid (valid = ", valid, ")"));
  }
  OverflowRecord record;
  record.acc_type = Load<uint32_t>(bytes, 12);
  if (record.acc_type > kAccTypeSdma) {
    return absl::InvalidArgumentError(
        StrCat("overflow record acc_type ", record.acc_type,
               " is none of 0 AIC, 1 AIV, 2 AICPU, 3 SDMA"));
  }
  const uint32_t data_len = Load<uint32_t>(bytes, 20);
  if (data_len < kOverflowDataLen ||
      data_len > kOverflowPayloadBytes - kDataOffset) {
    return absl::InvalidArgumentError(StrCat(
        "overflow record data_len ", data_len, " is outside [",
        kOverflowDataLen, ", ", kOverflowPayloadBytes - kDataOffset, "]"));
  }
  uint64_t* fields[] = {
      &record.model_id,   &record.stream_id, &record.task_id, &record.task_type,
      &record.context_id, &record.thread_id, &record.status};
  size_t offset = kDataOffset;
  for (uint64_t* field : fields) {
    *field = Load<uint64_t>(bytes, offset);
    offset += 8;
  }
  return record;
}

std::string OverflowRecordFileName(uint32_t task_id, uint32_t stream_id,
                                   uint64_t timestamp_us) {
  return DumpFileName("Opdebug", "Node_OpDebug", task_id, stream_id,
                      timestamp_us);
}

std::string EncodeOverflowDumpFile(const OverflowRecord& record,
                                   uint64_t dump_time_us) {
  toolkit::dumpdata::DumpData header;
  header.set_version(std::string(kDumpFormatVersion));
  header.set_dump_time(dump_time_us);
  header.set_op_name("Node_OpDebug");
  auto* out = header.add_output();
  out->set_data_type(toolkit::dumpdata::DT_UINT8);
  out->set_format(toolkit::dumpdata::FORMAT_ND);
  out->mutable_shape()->add_dim(kOverflowPayloadBytes);
  out->set_size(kOverflowPayloadBytes);
  return EncodeDumpFilePrefix(header) + EncodeOverflowPayload(record);
}

}  // namespace acldump::dump
