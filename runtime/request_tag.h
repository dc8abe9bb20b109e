// The request an execution runs for. A service runs an execution for a request
// and sets its tag around that execution on the executing thread (the C ABI's
// aclmdlExecuteWithTag); observers read it (an armed dump matches it).
#ifndef ACLDUMP_RUNTIME_REQUEST_TAG_H_
#define ACLDUMP_RUNTIME_REQUEST_TAG_H_

#include <string_view>

namespace acldump {

// The calling thread's request tag; empty when it runs for none.
std::string_view CurrentRequestTag();

// Sets the calling thread's request tag while it lives (restoring the previous
// one after). `tag` must outlive it.
class ScopedRequestTag {
 public:
  explicit ScopedRequestTag(std::string_view tag);
  ~ScopedRequestTag();
  ScopedRequestTag(const ScopedRequestTag&) = delete;
  ScopedRequestTag& operator=(const ScopedRequestTag&) = delete;

 private:
  std::string_view previous_;
};

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_REQUEST_TAG_H_
