#include "worker/models/builtin_models.h"

#include <utility>

#include "absl/strings/match.h"

namespace noveltygrid {
namespace {

template <typename Maker>
const Maker* FindExact(const std::map<std::string, Maker>& makers, const std::string& id) {
  auto it = makers.find(id);
  return it == makers.end() ? nullptr : &it->second;
}

template <typename Maker>
std::vector<std::string> Ids(const std::map<std::string, Maker>& makers) {
  std::vector<std::string> ids;
  for (const auto& [id, maker] : makers) ids.push_back(id);
  return ids;
}

}  // namespace

void BuiltinModels::AddChatFamily(std::string prefix, std::string family, ChatMaker make) {
  chat_.push_back(ChatFamily{std::move(prefix), std::move(family), std::move(make)});
}

void BuiltinModels::AddPairClassifier(std::string id, PairClassifierMaker make) {
  classifiers_[std::move(id)] = std::move(make);
}

void BuiltinModels::AddRewardModel(std::string id, RewardModelMaker make) { rewards_[std::move(id)] = std::move(make); }

const BuiltinModels::ChatMaker* BuiltinModels::FindChat(const std::string& id) const {
  for (const ChatFamily& f : chat_) {
    if (absl::StartsWith(id, f.prefix)) return &f.make;
  }
  return nullptr;
}

const BuiltinModels::PairClassifierMaker* BuiltinModels::FindPairClassifier(const std::string& id) const {
  return FindExact(classifiers_, id);
}

const BuiltinModels::RewardModelMaker* BuiltinModels::FindRewardModel(const std::string& id) const {
  return FindExact(rewards_, id);
}

std::vector<std::string> BuiltinModels::ChatFamilies() const {
  std::vector<std::string> families;
  for (const ChatFamily& f : chat_) families.push_back(f.family);
  return families;
}

std::vector<std::string> BuiltinModels::PairClassifierIds() const { return Ids(classifiers_); }

std::vector<std::string> BuiltinModels::RewardModelIds() const { return Ids(rewards_); }

}  // namespace noveltygrid
