// serve-sim's chat completion JSON (sim_server/chat_completion_json.h): the one-pass request reading
// gives what the nlohmann tree reading gives, for the common shape and for every body it hands over;
// the reply is written byte for byte as nlohmann dumps the same object.
#include "sim_server/chat_completion_json.h"

#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/hashing.h"
#include "common/json_util.h"
#include "gtest/gtest.h"
#include "tests/common/test_files.h"

namespace noveltygrid {
namespace {

TEST(ChatCompletionJson, CommonShapeIsReadFieldByField) {
  absl::StatusOr<ModelChatRequest> parsed = ParseChatCompletion(
      R"({"model":"sim:explorer","stream":false,"messages":[{"role":"system","content":"Be brief."},)"
      R"({"name":"u","role":"user","content":"Name \"a\" color.\n\u00e9"}],"temperature":0.25,)"
      R"("max_completion_tokens":200,"max_tokens":7,"seed":42,"n":2,"metadata":{"a":[1,2,{"b":null}]}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->model, "sim:explorer");
  const ChatRequest& r = parsed->request;
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[0].role, "system");
  EXPECT_EQ(r.messages[0].content, "Be brief.");
  EXPECT_EQ(r.messages[1].role, "user");
  EXPECT_EQ(r.messages[1].content, "Name \"a\" color.\n\xC3\xA9");
  EXPECT_EQ(r.temperature, 0.25);
  EXPECT_EQ(r.max_tokens, 200);  // max_completion_tokens first
  EXPECT_EQ(r.seed, 42u);
  EXPECT_EQ(r.n, 2);
}

TEST(ChatCompletionJson, DefaultsWhenOnlyModelAndMessagesAreGiven) {
  absl::StatusOr<ModelChatRequest> parsed =
      ParseChatCompletion(R"({"messages":[{"role":"user"}],"model":"explorer","temperature":1})");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->model, "explorer");
  EXPECT_EQ(parsed->request.messages[0].content, "");  // no content reads as empty
  EXPECT_EQ(parsed->request.temperature, 1.0);
  EXPECT_EQ(parsed->request.max_tokens, 4000);
  EXPECT_EQ(parsed->request.seed, 0u);
  EXPECT_EQ(parsed->request.n, 1);
}

// Reads `body` both ways and expects the same request or the same error.
void ExpectSameReading(const std::string& body) {
  absl::StatusOr<ModelChatRequest> fast = ParseChatCompletion(body);
  absl::StatusOr<ModelChatRequest> tree = ParseChatCompletionTree(body);
  ASSERT_EQ(fast.status(), tree.status()) << body;
  if (!fast.ok()) return;
  EXPECT_EQ(fast->model, tree->model) << body;
  const ChatRequest& a = fast->request;
  const ChatRequest& b = tree->request;
  ASSERT_EQ(a.messages.size(), b.messages.size()) << body;
  for (size_t i = 0; i < a.messages.size(); ++i) {
    EXPECT_EQ(a.messages[i].role, b.messages[i].role) << body;
    EXPECT_EQ(a.messages[i].content, b.messages[i].content) << body;
  }
  EXPECT_EQ(std::bit_cast<uint64_t>(a.temperature), std::bit_cast<uint64_t>(b.temperature)) << body;
  EXPECT_EQ(a.max_tokens, b.max_tokens) << body;
  EXPECT_EQ(a.seed, b.seed) << body;
  EXPECT_EQ(a.n, b.n) << body;
}

// Every body, read both ways: the same request or the same error. The bodies outside the common shape
// exercise the hand-over to the tree reading; the rest, the one-pass reading.
TEST(ChatCompletionJson, BothReadingsAgreeOnEveryBody) {
  using testing_files::DeeplyNestedJson;
  const std::vector<std::string> bodies = {
      R"({"model":"m","messages":[{"role":"user","content":"hi"}]})",
      "\xEF\xBB\xBF"
      R"( {"model":"m","messages":[{"role":"user","content":"hi"}]} )",
      R"({"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]})",
      R"({"model":"m","messages":[{"role":"user","content":null}],"temperature":null,"seed":null})",
      R"({"model":"m","model":"n","messages":[{"role":"user","content":"x"}]})",
      R"({"model":"m","messages":[{"role":"user","role":"assistant","content":"x"}]})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"n":1,"n":3})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":1.5})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":"x","max_completion_tokens":9})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":9,"max_tokens":1.5})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":9,"max_tokens":null})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":null,"max_tokens":7})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":{"a":1}})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":0})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":99999999999})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"seed":18446744073709551615})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"seed":-1,"n":-5})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"n":100000})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"temperature":"hot"})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"temperature":-0})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"temperature":1e400})",
      R"({"model":"m","messages":[]})",
      R"({"model":"m","messages":[{"content":"x"}]})",
      R"({"model":"m","messages":[{"role":1,"content":"x"}]})",
      R"({"model":"m","messages":["x"]})",
      R"({"model":"m","messages":{"role":"user"}})",
      R"({"model":7,"messages":[{"role":"user","content":"x"}]})",
      R"({"messages":[{"role":"user","content":"x"}]})",
      R"({"model":"m"})",
      R"({"model":"m","messages":[{"role":"user","content":"x"}]} trailing)",
      R"({"model":"m","messages":[{"role":"user","content":"x"},]})",
      R"({"model":"m","messages":[{"role":"user","content":"\ud800"}]})",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\"}]}",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"deep":)" + DeeplyNestedJson(kMaxJsonDepth) + "}",
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"deep":)" + DeeplyNestedJson(kMaxJsonDepth - 1) + "}",
      R"({"model":"m","messages":[{"role":"user","content":"x","deep":)" + DeeplyNestedJson(kMaxJsonDepth - 2) + "}]}",
      R"({"model":"m","messages":[{"role":"user","content":"x","deep":)" + DeeplyNestedJson(kMaxJsonDepth - 3) + "}]}",
      R"([1,2])",
      R"()",
  };
  for (const std::string& body : bodies) ExpectSameReading(body);
}

// The bodies above and the common shape, mutated at random (a fixed seed: the same bodies every run) by
// byte edits and JSON tokens put in and taken out, so that the one-pass reading meets its edge cases
// between the cases written out.
TEST(ChatCompletionJson, BothReadingsAgreeOnMutatedBodies) {
  const std::vector<std::string> tokens = {"{",
                                           "}",
                                           "[",
                                           "]",
                                           ",",
                                           ":",
                                           "\"",
                                           "\\",
                                           "null",
                                           "true",
                                           "-0",
                                           "1e2",
                                           "1.5",
                                           "18446744073709551616",
                                           "\"model\"",
                                           "\"messages\"",
                                           "\"role\"",
                                           "\"content\"",
                                           "\"n\"",
                                           "\"seed\"",
                                           "\"temperature\"",
                                           "\"max_tokens\"",
                                           "\\u00e9",
                                           "\\ud83d\\ude00",
                                           "\xC3\xA9",
                                           " "};
  std::mt19937 rng(20261128);
  const std::string base =
      R"({"model":"sim:explorer","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Q"}],)"
      R"("temperature":0.7,"max_completion_tokens":200,"seed":42,"n":2,"x":[1,{"y":null}]})";
  int accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string body = base;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % (body.size() + 1);
      switch (rng() % 3) {
        case 0:
          body.insert(at, tokens[rng() % tokens.size()]);
          break;
        case 1:
          body.erase(at, 1 + rng() % 8);
          break;
        default:
          if (at < body.size()) body[at] = static_cast<char>(rng() % 256);
      }
    }
    ExpectSameReading(body);
    accepted += ParseChatCompletion(body).ok() ? 1 : 0;
  }
  EXPECT_GT(accepted, 1000);  // the mutations also reach bodies that read as requests
}

// As OpenAI's API has it, max_completion_tokens replaces max_tokens: then max_tokens is not even read.
TEST(ChatCompletionJson, MaxTokensIsIgnoredNextToMaxCompletionTokens) {
  for (const char* max_tokens : {R"("x")", "1.5", "null", "[1]", "0"}) {
    const std::string body = absl::StrCat(R"({"model":"m","messages":[{"role":"user"}],"max_tokens":)", max_tokens,
                                          R"(,"max_completion_tokens":9})");
    absl::StatusOr<ModelChatRequest> parsed = ParseChatCompletion(body);
    ASSERT_TRUE(parsed.ok()) << body << ": " << parsed.status();
    EXPECT_EQ(parsed->request.max_tokens, 9) << body;
  }
}

TEST(ChatCompletionJson, ErrorsSayWhatIsWrong) {
  EXPECT_EQ(ParseChatCompletion(R"({"model":"m","messages":[]})").status().message(),
            "'messages' must be a non-empty array of {role, content}");
  EXPECT_EQ(ParseChatCompletion(R"({"model":"m","messages":[{"role":"user"}],"max_tokens":0})").status().message(),
            "'max_tokens' must be at least 1");
  EXPECT_EQ(ParseChatCompletion(R"({"model":"m","messages":[{"role":"user"}],"n":1.5})").status().message(),
            "'n' must be an integer");
}

// The reply as the tree it used to be built from, dumped by nlohmann.
std::string DumpedAsTree(uint64_t id, int64_t created, const std::string& model, const ChatReply& reply) {
  Json choices = Json::array();
  for (size_t i = 0; i < reply.choices.size(); ++i) {
    choices.push_back({{"index", i},
                       {"message", {{"role", "assistant"}, {"content", reply.choices[i]}}},
                       {"logprobs", nullptr},
                       {"finish_reason", "stop"}});
  }
  return DumpJson(Json{{"id", "chatcmpl-sim-" + HexId(id)},
                       {"object", "chat.completion"},
                       {"created", created},
                       {"model", model},
                       {"system_fingerprint", "noveltygrid-sim"},
                       {"choices", std::move(choices)},
                       {"usage",
                        {{"prompt_tokens", reply.prompt_tokens},
                         {"completion_tokens", reply.completion_tokens},
                         {"total_tokens", reply.prompt_tokens + reply.completion_tokens}}}});
}

TEST(ChatCompletionJson, ReplyIsWrittenAsNlohmannDumpsIt) {
  ChatReply none;
  ChatReply one;
  one.choices = {"<answer>Teal.</answer>"};
  one.prompt_tokens = 120;
  one.completion_tokens = 3;
  ChatReply many;
  many.choices = {"quote \" backslash \\ slash / newline \n tab \t cr \r",
                  std::string("controls \x01\x1f\x7f nul ") + '\0' + " end",
                  "utf-8 \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "invalid \xff\xfe utf-8 \xC3", ""};
  many.prompt_tokens = 987654321012;
  many.completion_tokens = 0;
  for (const ChatReply* reply : {&none, &one, &many}) {
    for (const std::string model : {"sim:explorer", "odd \"model\"\n"}) {
      EXPECT_EQ(RenderChatCompletion(0x0123456789abcdefULL, 1735689603, model, *reply),
                DumpedAsTree(0x0123456789abcdefULL, 1735689603, model, *reply));
    }
  }
}

}  // namespace
}  // namespace noveltygrid
