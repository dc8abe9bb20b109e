// aclInit / aclFinalize and the calls that need no library state: the recent
// error message, the version, application logging.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "acl/acl.h"
#include "api_support.h"
#include "base/file_reader.h"
#include "base/strings.h"
#include "dump/exception_env.h"
#include "kernels/threading.h"
#include "library.h"

namespace acldump::capi {
namespace {

// The SDK's limit for aclInit's config file.
constexpr size_t kMaxInitConfigBytes = size_t{10} << 20;

// The config file's content ("" for no file), or ACL_ERROR_INVALID_FILE.
aclError ReadInitConfig(const char* path, std::string* content) {
  if (path == nullptr || path[0] == '\0') return ACL_SUCCESS;
  absl::StatusOr<std::string> text =
      ReadRegularFile(path, kMaxInitConfigBytes, "aclInit config file");
  if (!text.ok()) return FailWith(text.status(), ACL_ERROR_INVALID_FILE);
  *content = std::move(*text);
  return ACL_SUCCESS;
}

// The SDK accepts a later aclInit only with the first one's content.
aclError CheckSameContent(const Library& lib, const char* path, size_t hash) {
  if (!lib.init_content_hash || *lib.init_content_hash == hash) {
    return ACL_SUCCESS;
  }
  return Fail(ACL_ERROR_INVALID_PARAM,
              StrCat("aclInit: the content of the config ",
                     path && path[0] ? StrCat("file '", path, "'")
                                     : std::string("(none)"),
                     " differs from that of the first aclInit of this "
                     "process; only the same content is accepted again after "
                     "aclFinalize (start a new process to change it)"));
}

// The runtime settings of aclInit's config: {"acldump": {"intra_op_threads":
// N}} with N in [0, kMaxIntraOpThreads] (0: the machine's cores). Without the
// key, ACLDUMP_INTRA_OP_THREADS or the machine's cores.
aclError ReadRuntimeSettings(const char* path, const std::string& content,
                             int* threads) {
  *threads = DefaultIntraOpThreads();
  // Text that is not JSON was reported by the dump config already.
  const nlohmann::json root = nlohmann::json::parse(content, nullptr, false);
  if (!root.is_object() || !root.contains("acldump")) return ACL_SUCCESS;
  auto fail = [path](std::string_view what) {
    return Fail(ACL_ERROR_INVALID_FILE,
                StrCat("aclInit config file '", path, "': ", what));
  };
  const nlohmann::json& settings = root["acldump"];
  if (!settings.is_object()) {
    return fail(
        "\"acldump\" must be an object, e.g. {\"intra_op_threads\": 2}");
  }
  for (const auto& [key, value] : settings.items()) {
    if (key != "intra_op_threads") {
      return fail(StrCat("\"acldump\" has no key \"", key,
                         "\" (known: \"intra_op_threads\")"));
    }
    if (!value.is_number_integer() || value.get<int64_t>() < 0 ||
        value.get<int64_t>() > kMaxIntraOpThreads) {
      return fail(StrCat("\"acldump.intra_op_threads\" is ", value.dump(),
                         ": it must be an integer from 0 (the machine's "
                         "cores) to ",
                         kMaxIntraOpThreads));
    }
    const int64_t n = value.get<int64_t>();
    *threads = n == 0 ? MachineCores() : static_cast<int>(n);
  }
  return ACL_SUCCESS;
}

}  // namespace

Library& Lib() {
  static Library* const library = new Library;
  return *library;
}

std::shared_ptr<State> Acquire() {
  Library& lib = Lib();
  std::lock_guard<std::mutex> lock(lib.mutex);
  if (!lib.state) {
    Fail(ACL_ERROR_UNINITIALIZE, "acl is not initialised: call aclInit first");
  }
  return lib.state;
}

aclDataBuffer* WritableDatasetBuffer(aclmdlDataset* dataset, size_t index) {
  if (dataset == nullptr || !Lib().datasets.Contains(dataset)) {
    Fail(ACL_ERROR_INVALID_PARAM, "dataset is NULL or was destroyed");
    return nullptr;
  }
  if (index >= dataset->buffers.size()) {
    Fail(ACL_ERROR_INVALID_PARAM,
         StrCat("index ", index, " is out of range (the dataset has ",
                dataset->buffers.size(), " buffers)"));
    return nullptr;
  }
  aclDataBuffer* buffer = dataset->buffers[index];
  if (!Lib().buffers.Contains(buffer) || buffer->data == nullptr) {
    Fail(ACL_ERROR_INVALID_PARAM,
         StrCat("buffer ", index,
                " of the dataset has no memory or was destroyed"));
    return nullptr;
  }
  return buffer;
}

namespace {

// acldump's extension: ACLDUMP_CONFIG=acl.json gives aclInit that file's
// dump section, so a program that calls aclInit(NULL) (or with a config of its
// own) dumps without a code edit. The file is checked as aclInit's own; its
// dump section replaces the program's (a warning says so).
aclError ApplyConfigFromEnvironment(State& state, const std::string& content) {
  const char* path = std::getenv("ACLDUMP_CONFIG");
  if (path == nullptr || *path == '\0') return ACL_SUCCESS;
  std::string env_content;
  if (aclError e = ReadInitConfig(path, &env_content)) return e;
  const nlohmann::json env_root =
      nlohmann::json::parse(env_content, nullptr, false);
  if (!env_root.is_object() || !env_root.contains("dump")) {
    std::fprintf(stderr,
                 "[acldump] warning: ACLDUMP_CONFIG=%s has no \"dump\" "
                 "section: nothing is dumped because of it\n",
                 path);
  }
  absl::Status configured = state.dump.ConfigureFromAclInit(path);
  if (!configured.ok()) {
    return FailAclInit(absl::Status(configured.code(),
                                    StrCat("ACLDUMP_CONFIG=", path, ": ",
                                           std::string(configured.message()))));
  }
  const nlohmann::json root = nlohmann::json::parse(content, nullptr, false);
  if (root.is_object() && root.contains("dump") && env_root.is_object() &&
      env_root.contains("dump")) {
    std::fprintf(stderr,
                 "[acldump] warning: ACLDUMP_CONFIG=%s replaces the dump "
                 "section of the program's aclInit config\n",
                 path);
  }
  return ACL_SUCCESS;
}

}  // namespace

}  // namespace acldump::capi

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT

extern "C" {

aclError aclInit(const char* configPath) {
  return GuardedCall([&] {
    Library& lib = Lib();
    std::lock_guard<std::mutex> lock(lib.mutex);
    if (lib.state) {
      return Fail(ACL_ERROR_REPEAT_INITIALIZE,
                  "aclInit was already called; call aclFinalize first");
    }
    std::string content;
    if (aclError e = ReadInitConfig(configPath, &content)) return e;
    const size_t hash = std::hash<std::string>{}(content);
    if (aclError e = CheckSameContent(lib, configPath, hash)) return e;
    auto state = std::make_shared<State>();
    // Before the config, which gives way to it (as in the SDK).
    absl::StatusOr<std::vector<std::string>> from_environment =
        state->dump.EnableExceptionDumpFromEnvironment(
            dump::ReadExceptionEnvironment());
    if (!from_environment.ok()) return FailAclInit(from_environment.status());
    for (const std::string& warning : *from_environment) {
      std::fprintf(stderr, "[acldump] warning: %s\n", warning.c_str());
    }
    // An empty file is no config, as in the SDK.
    int threads = DefaultIntraOpThreads();
    if (!content.empty()) {
      absl::Status configured = state->dump.ConfigureFromAclInit(configPath);
      if (!configured.ok()) return FailAclInit(configured);
      if (aclError e = ReadRuntimeSettings(configPath, content, &threads)) {
        return e;
      }
    }
    if (aclError e = ApplyConfigFromEnvironment(*state, content)) return e;
    // Models loaded from now on run on this many threads.
    SetIntraOpThreads(threads);
    lib.state = std::move(state);
    if (!lib.init_content_hash) lib.init_content_hash = hash;
    return ACL_SUCCESS;
  });
}

aclError aclFinalize(void) {
  return GuardedCall([&] {
    std::shared_ptr<State> state;
    {
      Library& lib = Lib();
      std::lock_guard<std::mutex> lock(lib.mutex);
      if (!lib.state) {
        return Fail(ACL_ERROR_REPEAT_FINALIZE,
                    "aclFinalize without aclInit (or called twice)");
      }
      state.swap(lib.state);
    }
    // Calls in flight keep `state` alive; they finish against a shut-down
    // runtime and closed dump sessions, which they report as errors.
    state->runtime.Shutdown();
    for (const auto& loaded : state->models.All()) {
      state->models.Remove(loaded->id).IgnoreError();
    }
    absl::Status closed = state->dump.Shutdown();
    if (!closed.ok()) return FailWith(closed, ACL_ERROR_WRITE_FILE);
    return ACL_SUCCESS;
  });
}

aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion,
                         int32_t* patchVersion) {
  return GuardedCall([&] {
    if (majorVersion == nullptr || minorVersion == nullptr ||
        patchVersion == nullptr) {
      return Fail(ACL_ERROR_INVALID_PARAM, "version outputs must not be NULL");
    }
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
  });
}

const char* aclGetRecentErrMsg(void) { return RecentError(); }

void aclAppLog(aclLogLevel logLevel, const char* func, const char* file,
               uint32_t line, const char* fmt, ...) {
  if (fmt == nullptr) return;
  static const int threshold = [] {
    const char* level = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
    return level != nullptr && level[0] >= '0' && level[0] <= '3' &&
                   level[1] == '\0'
               ? level[0] - '0'
               : static_cast<int>(ACL_ERROR);
  }();
  const int32_t level = RawEnum(logLevel);
  if (level < threshold) return;
  static const char* const kNames[] = {"DEBUG", "INFO", "WARNING", "ERROR"};
  const unsigned index = static_cast<unsigned>(level);
  char message[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(message, sizeof(message), fmt, args);
  va_end(args);
  std::fprintf(stderr, "[%s] %s:%u %s: %s\n", index < 4 ? kNames[index] : "LOG",
               file ? file : "?", static_cast<unsigned>(line),
               func ? func : "?", message);
}

}  // extern "C"
