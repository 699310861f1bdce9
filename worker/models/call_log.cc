#include "worker/models/call_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/hashing.h"

namespace noveltygrid {

absl::StatusOr<std::unique_ptr<CallLog>> CallLog::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot open the call log ", path, ": ", std::strerror(errno)));
  return std::unique_ptr<CallLog>(new CallLog(fd));
}

CallLog::~CallLog() { ::close(fd_); }

void CallLog::Write(const std::string& line) {
  const std::string text = line + "\n";
  ssize_t ignored = ::write(fd_, text.data(), text.size());
  (void)ignored;
}

namespace {

class LoggedChat : public ChatModel {
 public:
  LoggedChat(std::unique_ptr<ChatModel> inner, CallLog* log) : inner_(std::move(inner)), log_(log) {}
  const std::string& id() const override { return inner_->id(); }
  void Complete(ChatRequest request, ChatCallback done) override {
    const std::string& last = request.messages.empty() ? std::string() : request.messages.back().content;
    log_->Write(absl::StrCat("chat ", inner_->id(), " ", HexId(StableHash(last))));
    inner_->Complete(std::move(request), std::move(done));
  }

 private:
  std::unique_ptr<ChatModel> inner_;
  CallLog* log_;
};

class LoggedEmbedder : public Embedder {
 public:
  LoggedEmbedder(std::unique_ptr<Embedder> inner, CallLog* log) : inner_(std::move(inner)), log_(log) {}
  const std::string& id() const override { return inner_->id(); }
  int dimensions() const override { return inner_->dimensions(); }
  void Embed(std::vector<std::string> texts, EmbedCallback done) override {
    log_->Write(absl::StrCat("embed ", inner_->id(), " ", texts.size()));
    inner_->Embed(std::move(texts), std::move(done));
  }

 private:
  std::unique_ptr<Embedder> inner_;
  CallLog* log_;
};

}  // namespace

std::unique_ptr<ChatModel> LogCalls(std::unique_ptr<ChatModel> model, CallLog* log) {
  return std::make_unique<LoggedChat>(std::move(model), log);
}

std::unique_ptr<Embedder> LogCalls(std::unique_ptr<Embedder> model, CallLog* log) {
  return std::make_unique<LoggedEmbedder>(std::move(model), log);
}

}  // namespace noveltygrid
