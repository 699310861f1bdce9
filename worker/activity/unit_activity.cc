#include "worker/activity/unit_activity.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace noveltygrid {

void UnitActivity::Started(const std::string& unit_id, const std::string& call, absl::Duration timeout) {
  const absl::Time now = clock_->Now();
  absl::MutexLock lock(&mu_);
  WaitingCall& w = units_[unit_id];
  w.call = call;
  w.since = now;
  w.timeout = timeout;
  ++w.in_flight;
}

void UnitActivity::Ended(const std::string& unit_id) {
  absl::MutexLock lock(&mu_);
  auto it = units_.find(unit_id);
  if (it != units_.end() && it->second.in_flight > 0) --it->second.in_flight;
}

void UnitActivity::Forget(const std::string& unit_id) {
  absl::MutexLock lock(&mu_);
  units_.erase(unit_id);
}

std::optional<WaitingCall> UnitActivity::Waiting(const std::string& unit_id) const {
  absl::MutexLock lock(&mu_);
  auto it = units_.find(unit_id);
  if (it == units_.end()) return std::nullopt;
  return it->second;
}

absl::Duration CallTimeout(const ModelEndpoint* endpoint) {
  return endpoint != nullptr ? endpoint->provider.timeout : ProviderConfig().timeout;
}

namespace {

// Notes the call on the board when it starts and when its callback runs.
class TrackedChat : public ChatModel {
 public:
  TrackedChat(ChatModel* inner, UnitActivity* board, std::string unit_id, std::string call, absl::Duration timeout)
      : inner_(inner), board_(board), unit_id_(std::move(unit_id)), call_(std::move(call)), timeout_(timeout) {}
  const std::string& id() const override { return inner_->id(); }
  void Complete(ChatRequest request, ChatCallback done) override {
    board_->Started(unit_id_, call_, timeout_);
    inner_->Complete(std::move(request), [board = board_, unit = unit_id_,
                                          done = std::move(done)](absl::StatusOr<ChatReply> reply) mutable {
      board->Ended(unit);
      std::move(done)(std::move(reply));
    });
  }

 private:
  ChatModel* const inner_;
  UnitActivity* const board_;
  const std::string unit_id_, call_;
  const absl::Duration timeout_;
};

class TrackedEmbedder : public Embedder {
 public:
  TrackedEmbedder(Embedder* inner, UnitActivity* board, std::string unit_id, std::string call, absl::Duration timeout)
      : inner_(inner), board_(board), unit_id_(std::move(unit_id)), call_(std::move(call)), timeout_(timeout) {}
  const std::string& id() const override { return inner_->id(); }
  int dimensions() const override { return inner_->dimensions(); }
  void Embed(std::vector<std::string> texts, EmbedCallback done) override {
    board_->Started(unit_id_, call_, timeout_);
    inner_->Embed(std::move(texts),
                  [board = board_, unit = unit_id_, done = std::move(done)](absl::StatusOr<EmbedReply> result) mutable {
                    board->Ended(unit);
                    std::move(done)(std::move(result));
                  });
  }

 private:
  Embedder* const inner_;
  UnitActivity* const board_;
  const std::string unit_id_, call_;
  const absl::Duration timeout_;
};

}  // namespace

TrackedModels::~TrackedModels() { board_->Forget(unit_id_); }

ChatModel* TrackedModels::Chat(ChatModel* inner, const std::string& role, const ModelEndpoint* endpoint) {
  if (inner == nullptr) return nullptr;
  chats_.push_back(std::make_unique<TrackedChat>(inner, board_, unit_id_, absl::StrCat(role, " by ", inner->id()),
                                                 CallTimeout(endpoint)));
  return chats_.back().get();
}

Embedder* TrackedModels::Embedding(Embedder* inner, const std::string& role, const ModelEndpoint* endpoint) {
  if (inner == nullptr) return nullptr;
  embedders_.push_back(std::make_unique<TrackedEmbedder>(
      inner, board_, unit_id_, absl::StrCat(role, " by ", inner->id()), CallTimeout(endpoint)));
  return embedders_.back().get();
}

}  // namespace noveltygrid
