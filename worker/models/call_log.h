// CallLog: one line per model call, appended to a file, for accounting outside the process (the
// Redis tests count with it how many calls a crash cost). Lines are "chat MODEL HASH" (HASH: 16 hex
// digits of the last message) and "embed MODEL N" (N texts). The decorators below write them.
// Thread-safe: each line is one write(2) on an O_APPEND descriptor, so processes can share a file.
#ifndef NOVELTYGRID_WORKER_MODELS_CALL_LOG_H_
#define NOVELTYGRID_WORKER_MODELS_CALL_LOG_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "worker/models/model.h"

namespace noveltygrid {

class CallLog {
 public:
  static absl::StatusOr<std::unique_ptr<CallLog>> Open(const std::string& path);
  ~CallLog();
  void Write(const std::string& line);

 private:
  explicit CallLog(int fd) : fd_(fd) {}
  const int fd_;
};

// Wrap a model so that every call is logged before it is made.
std::unique_ptr<ChatModel> LogCalls(std::unique_ptr<ChatModel> model, CallLog* log);
std::unique_ptr<Embedder> LogCalls(std::unique_ptr<Embedder> model, CallLog* log);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_MODELS_CALL_LOG_H_
