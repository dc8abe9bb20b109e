// The overflow record of `dump_debug: on`: the 2048-byte
// payload of an Opdebug.Node_OpDebug dump file.
//
// Payload layout (little-endian, no padding, unused bytes zero):
//   offset  0  uint32 magic 0x5A5A5A5A
//           4  uint32 version (1)
//           8  uint32 valid (1 for a record)
//          12  uint32 acc_type (0 AIC, 1 AIV, 2 AICPU, 3 SDMA)
//          16  uint32 reserved (0)
//          20  uint32 data_len: bytes of record data after this field (56)
//          24  uint64 model_id
//          32  uint64 stream_id
//          40  uint64 task_id
//          48  uint64 task_type
//          56  uint64 context_id
//          64  uint64 thread_id
//          72  uint64 status (acldump: kOverflowStatus* bits)
//          80  zeros up to 2048
#ifndef ACLDUMP_DUMP_FORMAT_OVERFLOW_RECORD_H_
#define ACLDUMP_DUMP_FORMAT_OVERFLOW_RECORD_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace acldump::dump {

inline constexpr size_t kOverflowPayloadBytes = 2048;
inline constexpr uint32_t kOverflowMagic = 0x5A5A5A5A;
inline constexpr uint32_t kOverflowVersion = 1;
// Bytes from model_id through status.
inline constexpr uint32_t kOverflowDataLen = 7 * 8;

inline constexpr uint32_t kAccTypeAic = 0;
inline constexpr uint32_t kAccTypeAiv = 1;
inline constexpr uint32_t kAccTypeAicpu = 2;
inline constexpr uint32_t kAccTypeSdma = 3;

// What acldump saw in the op's outputs (CPU kernels have no hardware status
// register; these bits stand in for it).
inline constexpr uint64_t kOverflowStatusNan = 1;
inline constexpr uint64_t kOverflowStatusPositiveInf = 2;
inline constexpr uint64_t kOverflowStatusNegativeInf = 4;

struct OverflowRecord {
  uint32_t acc_type = kAccTypeAicpu;
  uint64_t model_id = 0;
  uint64_t stream_id = 0;
  uint64_t task_id = 0;
  uint64_t task_type = 0;
  uint64_t context_id = 0;
  uint64_t thread_id = 0;
  uint64_t status = 0;

  friend bool operator==(const OverflowRecord&,
                         const OverflowRecord&) = default;
};

// Exactly kOverflowPayloadBytes bytes.
std::string EncodeOverflowPayload(const OverflowRecord& record);
// Checks the size, magic, version, valid flag, acc_type and data_len.
absl::StatusOr<OverflowRecord> DecodeOverflowPayload(std::string_view bytes);

// "Opdebug.Node_OpDebug.{task_id}.{stream_id}.{timestamp_us, 16 digits}".
std::string OverflowRecordFileName(uint32_t task_id, uint32_t stream_id,
                                   uint64_t timestamp_us);
// The whole record file (the 2.0 layout): op_name "Node_OpDebug", one output
// DT_UINT8, FORMAT_ND, shape [2048] holding the payload.
std::string EncodeOverflowDumpFile(const OverflowRecord& record,
                                   uint64_t dump_time_us);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FORMAT_OVERFLOW_RECORD_H_
