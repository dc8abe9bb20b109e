#include "dump/payload.h"

namespace acldump::dump {

std::unique_ptr<const Payload> MakePayload(const DumpConfig& config) {
  switch (config.data) {
    case DumpData::kTensor:
      return MakeTensorPayload();
    case DumpData::kStats:
      return MakeStatsPayload(config);
  }
  return MakeTensorPayload();
}

}  // namespace acldump::dump
