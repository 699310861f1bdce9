// BuiltinModels: the in-process model families the factories build without an endpoint, registered by
// whoever assembles a process. The production factories (model_factory.h, scorer_factory.h) know only
// the lexical embedder and the HTTP clients; the simulated family (worker/sim/sim_models.h) comes in
// through here, registered by cli/ and by the tests that use it.
//
// Filled before use, then only read: safe to share between threads once filled.
#ifndef NOVELTYGRID_WORKER_MODELS_BUILTIN_MODELS_H_
#define NOVELTYGRID_WORKER_MODELS_BUILTIN_MODELS_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/executor.h"
#include "worker/models/model.h"

namespace noveltygrid {

class PairClassifier;  // worker/scorers/scorers.h
class RewardModel;     // worker/scorers/scorers.h

class BuiltinModels {
 public:
  // Each maker builds the model for one id (a missing executor or an unknown name in the family is the
  // maker's error to report).
  using ChatMaker = std::function<absl::StatusOr<std::unique_ptr<ChatModel>>(const std::string& id, Executor*)>;
  using PairClassifierMaker = std::function<absl::StatusOr<std::unique_ptr<PairClassifier>>(Executor*)>;
  using RewardModelMaker = std::function<absl::StatusOr<std::unique_ptr<RewardModel>>(Executor*)>;

  // Chat models whose ids start with `prefix` ("sim:"); `family` names them in messages ("sim:NAME").
  void AddChatFamily(std::string prefix, std::string family, ChatMaker make);
  void AddPairClassifier(std::string id, PairClassifierMaker make);
  void AddRewardModel(std::string id, RewardModelMaker make);

  // The maker for `id` (the first family whose prefix matches), or null.
  const ChatMaker* FindChat(const std::string& id) const;
  const PairClassifierMaker* FindPairClassifier(const std::string& id) const;
  const RewardModelMaker* FindRewardModel(const std::string& id) const;

  // For messages, in registration (families) or id order.
  std::vector<std::string> ChatFamilies() const;
  std::vector<std::string> PairClassifierIds() const;
  std::vector<std::string> RewardModelIds() const;

 private:
  struct ChatFamily {
    std::string prefix;
    std::string family;
    ChatMaker make;
  };
  std::vector<ChatFamily> chat_;
  std::map<std::string, PairClassifierMaker> classifiers_;
  std::map<std::string, RewardModelMaker> rewards_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_MODELS_BUILTIN_MODELS_H_
