#include "sim_server/sim_api.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/hashing.h"
#include "common/json_util.h"
#include "sim_server/chat_completion_json.h"
#include "sim_server/embedding_json.h"
#include "sim_server/sim_request_json.h"
#include "worker/models/lexical_embedder.h"
#include "worker/sim/sim_common.h"
#include "worker/sim/sim_scoring.h"

namespace noveltygrid {
namespace {

// `created` of chat completions: a fixed epoch (2025-01-01T00:00:00Z) plus the seed modulo a year, so
// it never depends on the wall clock.
constexpr int64_t kCreatedEpoch = 1735689600;
constexpr uint64_t kSecondsPerYear = 365ull * 24 * 3600;

using sim_json::Find;
using sim_json::Invalid;
using sim_json::MessageContent;
using sim_json::OptionalInt;
using sim_json::ParseObject;
using sim_json::RequiredString;

// A request body naming its model: the JSON object and its required "model".
struct ModelRequest {
  Json json;
  std::string model;
};

absl::StatusOr<ModelRequest> ParseModelRequest(absl::string_view body) {
  absl::StatusOr<Json> json = ParseObject(body);
  if (!json.ok()) return json.status();
  absl::StatusOr<std::string> model = RequiredString(*json, "model");
  if (!model.ok()) return model.status();
  return ModelRequest{*std::move(json), *std::move(model)};
}

// "explorer" -> "sim:explorer"; ids with a provider prefix are kept.
std::string NormaliseModel(const std::string& model) {
  return absl::StrContains(model, ':') ? model : absl::StrCat("sim:", model);
}

SimHttpReply ToReply(const absl::StatusOr<Json>& result) {
  if (result.ok()) return SimHttpReply{200, DumpJson(*result)};
  if (absl::IsNotFound(result.status())) {
    return SimErrorReply(404, result.status().message(), "invalid_request_error", "model_not_found");
  }
  return SimErrorReply(400, result.status().message(), "invalid_request_error", "");
}

// The texts of an embeddings request's "input".
absl::StatusOr<std::vector<std::string>> EmbeddingInputs(const Json& json) {
  std::vector<std::string> texts;
  const Json* input = Find(json, "input");
  if (input != nullptr && input->is_string()) {
    texts.push_back(input->get<std::string>());
  } else if (input != nullptr && input->is_array() && !input->empty()) {
    for (const Json& item : *input) {
      if (!item.is_string()) return Invalid("'input' items must be strings (token arrays are not supported)");
      texts.push_back(item.get<std::string>());
    }
  } else {
    return Invalid("'input' must be a string or a non-empty array of strings");
  }
  return texts;
}

// One (prompt, response) pair of a reward request.
struct RewardInput {
  std::string prompt;
  std::string response;
};

absl::StatusOr<RewardInput> PromptResponse(const Json& object) {
  absl::StatusOr<std::string> prompt = RequiredString(object, "prompt");
  if (!prompt.ok()) return prompt.status();
  absl::StatusOr<std::string> response = RequiredString(object, "response");
  if (!response.ok()) return response.status();
  return RewardInput{*std::move(prompt), *std::move(response)};
}

absl::StatusOr<RewardInput> FromMessages(const Json& messages) {
  if (!messages.is_array()) return Invalid("'messages' must be an array of {role, content}");
  int last_assistant = -1;
  for (int i = static_cast<int>(messages.size()) - 1; i >= 0 && last_assistant < 0; --i) {
    if (messages[i].is_object() && messages[i].value("role", "") == "assistant") last_assistant = i;
  }
  int last_user = -1;
  for (int i = last_assistant - 1; i >= 0 && last_user < 0; --i) {
    if (messages[i].is_object() && messages[i].value("role", "") == "user") last_user = i;
  }
  if (last_user < 0) {
    return Invalid("'messages' must hold a user message followed by the assistant response to score");
  }
  absl::StatusOr<std::string> prompt = MessageContent(messages[last_user]);
  if (!prompt.ok()) return prompt.status();
  absl::StatusOr<std::string> response = MessageContent(messages[last_assistant]);
  if (!response.ok()) return response.status();
  return RewardInput{*std::move(prompt), *std::move(response)};
}

absl::StatusOr<std::vector<RewardInput>> ParseRewardInputs(const Json& json) {
  std::vector<RewardInput> inputs;
  if (const Json* batch = Find(json, "inputs"); batch != nullptr) {
    if (!batch->is_array() || batch->empty())
      return Invalid("'inputs' must be a non-empty array of {prompt, response}");
    for (const Json& item : *batch) {
      if (!item.is_object()) return Invalid("every item of 'inputs' must be an object {prompt, response}");
      absl::StatusOr<RewardInput> input = PromptResponse(item);
      if (!input.ok()) return input.status();
      inputs.push_back(*std::move(input));
    }
    return inputs;
  }
  absl::StatusOr<RewardInput> input =
      Find(json, "messages") != nullptr ? FromMessages(json["messages"]) : PromptResponse(json);
  if (!input.ok()) {
    return Invalid(absl::StrCat(input.status().message(),
                                "; send {\"prompt\", \"response\"}, {\"messages\"} or {\"inputs\": [...]}"));
  }
  inputs.push_back(*std::move(input));
  return inputs;
}

Json ClassifierScores(const Json& pair) {
  const double same = SimSameIdeaProbability(pair[0].get<std::string>(), pair[1].get<std::string>());
  return Json::array({Json{{"label", "LABEL_0"}, {"score", 1.0 - same}}, Json{{"label", "LABEL_1"}, {"score", same}}});
}

bool IsTextPair(const Json& value) {
  return value.is_array() && value.size() == 2 && value[0].is_string() && value[1].is_string();
}

}  // namespace

SimHttpReply SimErrorReply(int status, absl::string_view message, absl::string_view type, absl::string_view code) {
  Json error = {{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}};
  if (!code.empty()) error["code"] = code;
  return SimHttpReply{status, DumpJson(Json{{"error", std::move(error)}})};
}

absl::StatusOr<std::unique_ptr<SimApi>> SimApi::Create(Executor* executor) {
  std::unique_ptr<SimApi> api(new SimApi());
  api->executor_ = executor;
  for (const std::string& id : SimChatModel::KnownIds()) {
    absl::StatusOr<std::unique_ptr<SimChatModel>> model = SimChatModel::Create(id, executor);
    if (!model.ok()) return model.status();
    api->generators_[id] = *std::move(model);
  }
  for (const char* id : {"sim:judge", "sim:judge-flaky"}) {
    absl::StatusOr<std::unique_ptr<SimJudgeModel>> judge = SimJudgeModel::Create(id, executor);
    if (!judge.ok()) return judge.status();
    api->judges_[id] = *std::move(judge);
  }
  return api;
}

int64_t SimApi::AdmissionTokens(const ChatRequest& request) {
  return sim::CountPromptWords(request) + static_cast<int64_t>(request.max_tokens) * std::max(request.n, 1);
}

absl::StatusOr<SimChatAnswer> SimApi::Chat(const std::string& requested_model, const ChatRequest& request) {
  SimChatAnswer answer;
  answer.model = NormaliseModel(requested_model);
  const auto g = generators_.find(answer.model);
  const auto j = judges_.find(answer.model);
  if (g == generators_.end() && j == judges_.end()) {
    std::vector<std::string> known;
    for (const auto& [id, unused] : generators_) known.push_back(id);
    for (const auto& [id, unused] : judges_) known.push_back(id);
    return absl::NotFoundError(
        absl::StrCat("The model '", requested_model, "' does not exist; known models: ", absl::StrJoin(known, ", ")));
  }
  // A hash of the whole prompt: computed once, for the generator's randomness and the reply's id.
  const uint64_t request_hash = sim::RequestHash(request, answer.model);
  absl::StatusOr<ChatReply> reply =
      g != generators_.end() ? g->second->Generate(request, request_hash) : j->second->Judge(request);
  if (!reply.ok()) return Invalid(reply.status().message());
  answer.reply = *std::move(reply);
  answer.id = StableHasher()
                  .Add(request_hash)
                  .Add(static_cast<uint64_t>(request.n))
                  .Add(static_cast<uint64_t>(request.max_tokens))
                  .Finish();
  return answer;
}

SimHttpReply SimApi::ChatCompletions(absl::string_view body) {
  absl::StatusOr<ModelChatRequest> parsed = ParseChatCompletion(body);
  if (!parsed.ok()) return ToReply(parsed.status());
  absl::StatusOr<SimChatAnswer> answer = Chat(parsed->model, parsed->request);
  if (!answer.ok()) return ToReply(answer.status());
  const int64_t created = kCreatedEpoch + static_cast<int64_t>(parsed->request.seed % kSecondsPerYear);
  return SimHttpReply{200, RenderChatCompletion(answer->id, created, answer->model, answer->reply)};
}

int64_t SimApi::ChatCompletionTokens(absl::string_view body) {
  absl::StatusOr<ModelChatRequest> parsed = ParseChatCompletion(body);
  return parsed.ok() ? AdmissionTokens(parsed->request) : 0;
}

int64_t SimApi::EmbeddingTokens(absl::string_view body) {
  absl::StatusOr<Json> json = ParseObject(body);
  absl::StatusOr<std::vector<std::string>> texts =
      json.ok() ? EmbeddingInputs(*json) : absl::StatusOr<std::vector<std::string>>(json.status());
  if (!texts.ok()) return 0;
  int64_t tokens = 0;
  for (const std::string& text : *texts) tokens += sim::CountWords(text);
  return tokens;
}

SimHttpReply SimApi::Embeddings(absl::string_view body) {
  absl::StatusOr<ModelRequest> parsed = ParseModelRequest(body);
  if (!parsed.ok()) return ToReply(parsed.status());
  const Json& json = parsed->json;
  const std::string& model = parsed->model;
  absl::StatusOr<std::unique_ptr<LexicalEmbedder>> embedder = LexicalEmbedder::Create(model, executor_);
  if (!embedder.ok()) {
    return ToReply(absl::NotFoundError(
        absl::StrCat("The model '", model, "' does not exist; embedding models: lexical, lexical-D (D in 1..65536)")));
  }
  absl::StatusOr<std::vector<std::string>> inputs = EmbeddingInputs(json);
  if (!inputs.ok()) return ToReply(inputs.status());
  const std::vector<std::string>& texts = *inputs;
  bool base64 = false;
  if (const Json* f = Find(json, "encoding_format"); f != nullptr) {
    if (!f->is_string() || (*f != "float" && *f != "base64")) {
      return ToReply(Invalid("'encoding_format' must be \"float\" or \"base64\""));
    }
    base64 = *f == "base64";
  }
  absl::StatusOr<std::optional<int64_t>> dimensions = OptionalInt(json, "dimensions");
  if (!dimensions.ok()) return ToReply(dimensions.status());
  if (dimensions->has_value() && **dimensions != (*embedder)->dimensions()) {
    return ToReply(Invalid(absl::StrCat("model '", model, "' has ", (*embedder)->dimensions(),
                                        " dimensions; 'dimensions' = ", **dimensions, " is not supported (use lexical-",
                                        **dimensions, ")")));
  }
  std::vector<Embedding> vectors;
  vectors.reserve(texts.size());
  int64_t tokens = 0;
  for (const std::string& text : texts) {
    vectors.push_back((*embedder)->EmbedOne(text));
    tokens += sim::CountWords(text);
  }
  return SimHttpReply{200, RenderEmbeddingList(vectors, base64, (*embedder)->id(), tokens)};
}

SimHttpReply SimApi::Predict(absl::string_view body) {
  auto run = [&]() -> absl::StatusOr<Json> {
    absl::StatusOr<Json> json = ParseObject(body);
    if (!json.ok()) return json.status();
    const Json* inputs = Find(*json, "inputs");
    if (inputs != nullptr && IsTextPair(*inputs)) return ClassifierScores(*inputs);
    if (inputs == nullptr || !inputs->is_array() || inputs->empty()) {
      return Invalid("'inputs' must be a text pair [a, b] or a non-empty array of pairs [[a, b], ...]");
    }
    Json result = Json::array();
    for (const Json& pair : *inputs) {
      if (!IsTextPair(pair)) return Invalid("every item of 'inputs' must be a pair of strings [a, b]");
      result.push_back(ClassifierScores(pair));
    }
    return result;
  };
  return ToReply(run());
}

SimHttpReply SimApi::Reward(absl::string_view body) {
  auto run = [&]() -> absl::StatusOr<Json> {
    absl::StatusOr<Json> json = ParseObject(body);
    if (!json.ok()) return json.status();
    std::string model = "sim:reward";
    if (const Json* m = Find(*json, "model"); m != nullptr) {
      if (!m->is_string()) return Invalid("'model' must be a string");
      model = m->get<std::string>();
    }
    absl::StatusOr<std::vector<RewardInput>> inputs = ParseRewardInputs(*json);
    if (!inputs.ok()) return inputs.status();
    Json scores = Json::array();
    for (const RewardInput& input : *inputs) scores.push_back(SimReward(input.prompt, input.response));
    return Json{{"model", model}, {"scores", std::move(scores)}};
  };
  return ToReply(run());
}

}  // namespace noveltygrid
