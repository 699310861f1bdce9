#include "worker/scorers/http_pair_classifier.h"

#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace noveltygrid {

absl::StatusOr<std::unique_ptr<HttpPairClassifier>> HttpPairClassifier::Create(const HttpPairClassifierOptions& options,
                                                                               ProviderChannel* channel,
                                                                               Executor* executor) {
  if (options.id.empty()) return absl::InvalidArgumentError("pair classifier: the id is empty");
  const std::string what = absl::StrCat("pair classifier '", options.id, "'");
  if (options.same_label.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": same_label is empty"));
  ASSIGN_OR_RETURN(BatchTarget target, MakeBatchTarget(what, channel, executor, options.path, options.max_batch));
  return std::unique_ptr<HttpPairClassifier>(new HttpPairClassifier(options, std::move(target)));
}

void HttpPairClassifier::Classify(std::vector<TextPair> pairs, ClassifyCallback done) {
  PostInputs(
      target_, pairs,
      [](const TextPair& pair) {
        return Json::array({pair.first, pair.second});
      },
      [this](Json& body) {
        if (options_.truncate) body["truncate"] = true;
      },
      [label = options_.same_label](const Json& reply, size_t expected) {
        return ParsePairClassifierReply(reply, expected, label);
      },
      DeliverAs<ScoredPairs>(std::move(done)));
}

absl::StatusOr<std::vector<double>> ParsePairClassifierReply(const Json& reply, size_t expected,
                                                             const std::string& same_label) {
  if (!reply.is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the reply is a JSON ", reply.type_name(), ", not an array of per-pair label scores"));
  }
  if (reply.size() != expected) {
    return absl::InvalidArgumentError(
        absl::StrCat("the reply has ", reply.size(), " entries for ", expected, " pairs"));
  }
  std::vector<double> probabilities;
  probabilities.reserve(expected);
  for (size_t i = 0; i < reply.size(); ++i) {
    const Json& entry = reply[i];
    if (!entry.is_array()) {
      return absl::InvalidArgumentError(
          absl::StrCat("entry ", i, " is a JSON ", entry.type_name(), ", not an array of {label, score}"));
    }
    std::optional<double> same;
    for (const Json& item : entry) {
      const auto label = item.is_object() ? item.find("label") : item.end();
      if (!item.is_object() || label == item.end() || !label->is_string()) {
        return absl::InvalidArgumentError(absl::StrCat("entry ", i, " has an item without a string 'label'"));
      }
      if (label->get<std::string>() != same_label) continue;
      if (same.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat("entry ", i, " has label '", same_label, "' twice"));
      }
      const auto score = item.find("score");
      if (score == item.end()) {
        return absl::InvalidArgumentError(absl::StrCat("entry ", i, " label '", same_label, "' has no 'score'"));
      }
      ASSIGN_OR_RETURN(same, ReplyNumber(*score, absl::StrCat("entry ", i, " score of '", same_label, "'")));
      if (*same < 0.0 || *same > 1.0) {
        return absl::InvalidArgumentError(
            absl::StrCat("entry ", i, " score of '", same_label, "' is ", *same, ", not a probability in [0, 1]"));
      }
    }
    if (!same.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("entry ", i, " has no label '", same_label, "'"));
    }
    probabilities.push_back(*same);
  }
  return probabilities;
}

}  // namespace noveltygrid
