#include "dump/payload.h"

namespace acldump::dump {

// The registration: each payload's kind, defined in its own file; the
// default first.
extern const PayloadKind kTensorPayload, kStatsPayload, kChecksumPayload;
const PayloadKind* const kRegistered[] = {&kTensorPayload, &kStatsPayload,
                                          &kChecksumPayload};

std::span<const PayloadKind* const> Payloads() { return kRegistered; }

const PayloadKind& DefaultPayload() { return *Payloads().front(); }

const PayloadKind* FindPayload(std::string_view name) {
  for (const PayloadKind* kind : Payloads()) {
    if (kind->name == name) return kind;
  }
  return nullptr;
}

}  // namespace acldump::dump
