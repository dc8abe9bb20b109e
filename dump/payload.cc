#include "dump/payload.h"

namespace acldump::dump {

std::span<const PayloadKind* const> Payloads() {
  // The registration: one entry per payload, the default first.
  static const PayloadKind* const kAll[] = {&kTensorPayload, &kStatsPayload};
  return kAll;
}

const PayloadKind& DefaultPayload() { return *Payloads().front(); }

const PayloadKind* FindPayload(std::string_view name) {
  for (const PayloadKind* kind : Payloads()) {
    if (kind->name == name) return kind;
  }
  return nullptr;
}

}  // namespace acldump::dump
