// OpenAiChatModel and OpenAiEmbedder against a scripted ProviderChannel: request bodies, strict reply
// parsing, and the coalescing of concurrent embedding calls.
#include "worker/models/openai_models.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim_test_util.h"
#include "tests/worker/models/scripted_channel.h"
#include "worker/http/retry_policy.h"

namespace noveltygrid {
namespace {

using modeltest::ScriptedChannel;
using simtest::QueueExecutor;
using ::testing::HasSubstr;

// Only the timers of an HttpClient, run by hand: each task is due `delay` after it was started on
// `clock`. RunFor moves the clock forward in steps, running every task as it comes due.
class ManualTimers : public HttpClient {
 public:
  explicit ManualTimers(FakeClock* clock) : clock_(clock) {}
  void Send(std::shared_ptr<const HttpRequest>, HttpCallback) override { ADD_FAILURE() << "no requests expected"; }
  void RunAfter(absl::Duration delay, Task task) override {
    delays.push_back(delay);
    tasks.push_back({clock_->Now() + delay, std::move(task)});
  }
  HttpClientStats Stats() const override { return {}; }
  void RunFor(absl::Duration span) {
    const absl::Time end = clock_->Now() + span;
    while (RunNext(end)) {
    }
    if (end > clock_->Now()) clock_->Advance(end - clock_->Now());
  }
  // Runs every task started so far and those they start, moving the clock to each one's time.
  void FireAll() {
    while (RunNext(absl::InfiniteFuture())) {
    }
  }
  struct Due {
    absl::Time at;
    Task task;
  };
  std::vector<absl::Duration> delays;
  std::vector<Due> tasks;

 private:
  // Runs the earliest task due by `end` (moving the clock to its time); false when there is none.
  bool RunNext(absl::Time end) {
    auto next = std::min_element(tasks.begin(), tasks.end(), [](const Due& a, const Due& b) { return a.at < b.at; });
    if (next == tasks.end() || next->at > end) return false;
    if (next->at > clock_->Now()) clock_->Advance(next->at - clock_->Now());
    Task task = std::move(next->task);
    tasks.erase(next);
    std::move(task)();
    return true;
  }
  FakeClock* const clock_;
};

ModelEndpoint Endpoint(const std::string& max_tokens_field = "max_tokens") {
  ModelEndpoint e;
  e.name = "local:big";
  e.remote_model = "org/big-model";
  e.provider.name = "local";
  e.provider.base_url = "http://127.0.0.1:1/v1";
  e.provider.max_tokens_field = max_tokens_field;
  e.provider.embed_batch = 4;
  e.provider.embed_wait = absl::Milliseconds(5);
  e.extra_body_json = R"({"top_p":0.5})";
  return e;
}

Json Completion(std::vector<std::pair<int, std::string>> choices) {
  Json c = Json::array();
  for (auto& [index, text] : choices)
    c.push_back(Json{{"index", index}, {"message", {{"role", "assistant"}, {"content", text}}}});
  return Json{{"choices", c}, {"usage", {{"prompt_tokens", 11}, {"completion_tokens", 7}}}};
}

TEST(OpenAiChatModelTest, RequestBodyCarriesEverySamplingParameterAndTheExtraFields) {
  ScriptedChannel channel;
  auto model = OpenAiChatModel::Create(Endpoint("max_completion_tokens"), &channel);
  ASSERT_TRUE(model.ok()) << model.status();
  ChatRequest request;
  request.messages = {{"system", "be brief"}, {"user", "list uses of a brick"}};
  request.temperature = 0.7;
  request.max_tokens = 321;
  request.seed = 42;
  request.n = 3;
  const Json body = Json::parse((*model)->RequestBody(request));
  EXPECT_EQ(body["model"], "org/big-model");
  EXPECT_EQ(body["messages"][1]["content"], "list uses of a brick");
  EXPECT_EQ(body["temperature"].get<double>(), 0.7);
  EXPECT_EQ(body["max_completion_tokens"], 321);
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_EQ(body["seed"], 42);
  EXPECT_EQ(body["n"], 3);
  EXPECT_EQ(body["top_p"].get<double>(), 0.5);
  request.n = 1;
  EXPECT_FALSE(Json::parse((*model)->RequestBody(request)).contains("n"));  // the default is not sent
}

TEST(OpenAiChatModelTest, RepliesAreParsedStrictly) {
  auto ok = OpenAiChatModel::ParseReply(Completion({{1, "second"}, {0, "first"}}).dump(), 2);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->choices, (std::vector<std::string>{"first", "second"}));  // by index, not order
  EXPECT_EQ(ok->prompt_tokens, 11);
  EXPECT_EQ(ok->completion_tokens, 7);

  EXPECT_THAT(OpenAiChatModel::ParseReply(Completion({{0, "only"}}).dump(), 3).status().message(),
              HasSubstr("1 choices for n=3"));
  EXPECT_THAT(OpenAiChatModel::ParseReply(Json{{"id", "x"}}.dump(), 1).status().message(), HasSubstr("no \"choices\""));
  Json refusal = {{"choices", {{{"index", 0}, {"message", {{"content", nullptr}, {"refusal", "I can't"}}}}}}};
  EXPECT_THAT(OpenAiChatModel::ParseReply(refusal.dump(), 1).status().message(), HasSubstr("refused: I can't"));
  EXPECT_THAT(OpenAiChatModel::ParseReply(Completion({{0, "a"}, {0, "b"}}).dump(), 2).status().message(),
              HasSubstr("repeated"));
}

// Token counts feed costs, budgets and provider limits: a negative or absurd one reads as 0 (found by
// tests/fuzz/provider_reply_fuzz: "prompt_tokens": -5 was passed on as is).
TEST(OpenAiChatModelTest, UsageIsNeverNegativeNorAbsurd) {
  Json reply = Completion({{0, "a"}});
  reply["usage"] = {{"prompt_tokens", -5}, {"completion_tokens", INT64_MAX}};
  absl::StatusOr<ChatReply> parsed = OpenAiChatModel::ParseReply(reply.dump(), 1);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->prompt_tokens, 0);
  EXPECT_EQ(parsed->completion_tokens, 0);
  reply["usage"] = {{"prompt_tokens", kMaxUsageTokens}, {"completion_tokens", 3}};
  parsed = OpenAiChatModel::ParseReply(reply.dump(), 1);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->prompt_tokens, kMaxUsageTokens);
  EXPECT_EQ(parsed->completion_tokens, 3);

  int64_t tokens = 1;
  const char* embeddings = R"({"data":[{"index":0,"embedding":[1.0,2.0]}],"usage":{"prompt_tokens":-1}})";
  ASSERT_TRUE(OpenAiEmbedder::ParseReply(embeddings, 1, &tokens).ok());
  EXPECT_EQ(tokens, 0);
}

// A 10 MB answer is a clear error of the call (the unit then ends with it), not an answer cut short;
// one of exactly the limit is an answer.
TEST(OpenAiChatModelTest, AnAnswerOverTheLimitIsAnErrorNotAnAnswer) {
  const std::string huge(10 << 20, 'a');
  absl::StatusOr<ChatReply> refused = OpenAiChatModel::ParseReply(Completion({{0, huge}}).dump(), 1);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument) << refused.status();
  EXPECT_THAT(refused.status().message(), HasSubstr("choice 0 holds 10485760 bytes of text, more than the 1048576"));
  const std::string largest(kMaxAnswerBytes, 'a');
  absl::StatusOr<ChatReply> kept = OpenAiChatModel::ParseReply(Completion({{0, largest}}).dump(), 1);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->choices.front().size(), kMaxAnswerBytes);
}

TEST(OpenAiChatModelTest, CompleteReportsRetriesAndProviderErrors) {
  QueueExecutor executor;
  ScriptedChannel channel;
  auto model = OpenAiChatModel::Create(Endpoint(), &channel);
  ASSERT_TRUE(model.ok());
  std::optional<absl::StatusOr<ChatReply>> first, second;
  (*model)->Complete(ChatRequest{{{"user", "q"}}}, [&](absl::StatusOr<ChatReply> r) { first = std::move(r); });
  (*model)->Complete(ChatRequest{{{"user", "q"}}}, [&](absl::StatusOr<ChatReply> r) { second = std::move(r); });
  ASSERT_EQ(channel.calls.size(), 2u);
  EXPECT_EQ(channel.calls[0].path, "/chat/completions");
  std::move(channel.calls[0].done)(Completion({{0, "answer"}}), CallInfo{3});
  std::move(channel.calls[1].done)(absl::UnauthenticatedError("provider 'local': HTTP 401: bad key"), CallInfo{1});
  ASSERT_TRUE(first.has_value() && first->ok());
  EXPECT_EQ((*first)->choices.front(), "answer");
  EXPECT_EQ((*first)->retries, 2);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->status().code(), absl::StatusCode::kUnauthenticated);
}

TEST(OpenAiChatModelTest, ExtraBodyMustBeAnObject) {
  ScriptedChannel channel;
  ModelEndpoint e = Endpoint();
  e.extra_body_json = "[1]";
  EXPECT_EQ(OpenAiChatModel::Create(e, &channel).status().code(), absl::StatusCode::kInvalidArgument);
}

std::string Base64Floats(const std::vector<float>& v) {
  std::string bytes(v.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return absl::Base64Escape(bytes);
}

TEST(OpenAiEmbedderTest, ParsesFloatAndBase64VectorsByIndex) {
  Json body = {
      {"data",
       {{{"index", 1}, {"embedding", Base64Floats({0.5f, -2.0f})}}, {{"index", 0}, {"embedding", {1.0, 0.25}}}}}};
  auto vectors = OpenAiEmbedder::ParseReply(body.dump(), 2);
  ASSERT_TRUE(vectors.ok()) << vectors.status();
  EXPECT_EQ((*vectors)[0], (Embedding{1.0f, 0.25f}));
  EXPECT_EQ((*vectors)[1], (Embedding{0.5f, -2.0f}));
  EXPECT_THAT(OpenAiEmbedder::ParseReply(body.dump(), 3).status().message(), HasSubstr("2 vectors for 3 inputs"));
  Json bad = {{"data", {{{"index", 0}, {"embedding", "not base64!"}}}}};
  EXPECT_THAT(OpenAiEmbedder::ParseReply(bad.dump(), 1).status().message(), HasSubstr("base64"));
  Json ragged = {{"data", {{{"index", 0}, {"embedding", {1.0}}}, {{"index", 1}, {"embedding", {1.0, 2.0}}}}}};
  EXPECT_THAT(OpenAiEmbedder::ParseReply(ragged.dump(), 2).status().message(), HasSubstr("different sizes"));
}

// Base64 is decoded by a fast path for canonical text and by absl::Base64Unescape otherwise: a
// reply must read the same either way (absl's rules are the reference for every input).
TEST(OpenAiEmbedderTest, Base64ReadsAsAbslDecodesIt) {
  std::vector<std::string> texts;
  for (size_t floats = 1; floats <= 7; ++floats) {
    std::vector<float> v;
    for (size_t i = 0; i < floats; ++i) v.push_back(static_cast<float>(i) * -1.5f + 0.125f);
    const std::string canonical = Base64Floats(v);
    texts.push_back(canonical);
    std::string unpadded = canonical;
    while (!unpadded.empty() && unpadded.back() == '=') unpadded.pop_back();
    texts.push_back(unpadded);
    texts.push_back(canonical.substr(0, 4) + " " + canonical.substr(4));    // whitespace inside
    if (canonical.size() >= 2 && canonical[canonical.size() - 1] == '=') {  // non-zero padding bits
      std::string odd = canonical;
      const size_t last = odd.find('=') - 1;
      odd[last] = odd[last] == 'A' ? 'B' : 'A';
      texts.push_back(odd);
    }
  }
  for (const char* bad : {"AAA", "AAAAA===", "A===", "AA=A", "AAAA!AAA", "AAAAAA==", "=AAA"}) texts.push_back(bad);
  for (const std::string& text : texts) {
    std::string bytes;
    const bool absl_ok = absl::Base64Unescape(text, &bytes) && !bytes.empty() && bytes.size() % sizeof(float) == 0;
    Json body = {{"data", {{{"index", 0}, {"embedding", text}}}}};
    absl::StatusOr<std::vector<Embedding>> vectors = OpenAiEmbedder::ParseReply(body.dump(), 1);
    ASSERT_EQ(vectors.ok(), absl_ok) << text << ": " << vectors.status();
    if (!absl_ok) continue;
    Embedding expected(bytes.size() / sizeof(float));
    std::memcpy(expected.data(), bytes.data(), bytes.size());
    EXPECT_EQ((*vectors)[0], expected) << text;
  }
}

TEST(OpenAiEmbedderTest, ConcurrentCallsAreCoalescedIntoBoundedBatches) {
  ScriptedChannel channel;
  FakeClock clock;  // does not move while the texts come: they come together
  ManualTimers timers(&clock);
  OpenAiEmbedder embedder(Endpoint(), &channel, &timers, &clock);
  std::vector<std::optional<absl::StatusOr<EmbedReply>>> got(6);
  auto collect = [&got](int i) { return [&got, i](absl::StatusOr<EmbedReply> r) { got[i] = std::move(r); }; };
  // Five single texts with a batch limit of 4: the fourth call fills a batch, which goes at once.
  for (int i = 0; i < 4; ++i) embedder.Embed({"text " + std::to_string(i)}, collect(i));
  ASSERT_EQ(channel.calls.size(), 1u);
  EXPECT_EQ(channel.calls[0].path, "/embeddings");
  EXPECT_EQ(channel.calls[0].body["input"].size(), 4u);
  EXPECT_EQ(channel.calls[0].body["model"], "org/big-model");
  EXPECT_EQ(channel.calls[0].body["encoding_format"], "base64");
  // The fifth waits for the timer (started once, for the shortest quiet gap: nothing has come apart
  // yet), then goes alone once nothing more came.
  embedder.Embed({"text 4", "text 5"}, collect(4));
  EXPECT_EQ(channel.calls.size(), 1u);
  ASSERT_EQ(timers.delays.size(), 2u);  // one per batch started: the first batch's timer is stale now
  EXPECT_EQ(timers.delays.back(), absl::Microseconds(500));
  timers.RunFor(absl::Microseconds(499));
  EXPECT_EQ(channel.calls.size(), 1u);
  timers.RunFor(absl::Microseconds(1));
  ASSERT_EQ(channel.calls.size(), 2u);
  EXPECT_EQ(channel.calls[1].body["input"], (Json{"text 4", "text 5"}));

  Json data = Json::array();
  for (int i = 0; i < 4; ++i) data.push_back(Json{{"index", i}, {"embedding", {static_cast<double>(i), 1.0}}});
  std::move(channel.calls[0].done)(Json{{"data", data}, {"usage", {{"prompt_tokens", 10}}}}, CallInfo{2});
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(got[i].has_value() && got[i]->ok()) << i;
    EXPECT_EQ((*got[i])->vectors, (std::vector<Embedding>{{static_cast<float>(i), 1.0f}}));
    EXPECT_EQ((*got[i])->retries, 1);
  }
  int64_t tokens = 0;
  for (int i = 0; i < 4; ++i) tokens += (*got[i])->prompt_tokens;
  EXPECT_EQ(tokens, 10);  // the usage is shared out, not counted four times
  std::move(channel.calls[1].done)(absl::UnavailableError("provider 'local': gave up"), CallInfo{7});
  ASSERT_TRUE(got[4].has_value());
  EXPECT_EQ(got[4]->status().code(), absl::StatusCode::kUnavailable);
}

// A hedged batch: its duplicates go to the first caller (the callers' counts add up to the duplicates
// sent), their tokens are shared out with the reply's (each duplicate costed as the reply).
TEST(OpenAiEmbedderTest, AHedgedBatchsDuplicatesAreCountedOnceAndCosted) {
  ScriptedChannel channel;
  FakeClock clock;
  ManualTimers timers(&clock);
  OpenAiEmbedder embedder(Endpoint(), &channel, &timers, &clock);
  std::vector<std::optional<absl::StatusOr<EmbedReply>>> got(4);
  for (int i = 0; i < 4; ++i) {
    embedder.Embed({"text " + std::to_string(i)}, [&got, i](absl::StatusOr<EmbedReply> r) { got[i] = std::move(r); });
  }
  ASSERT_EQ(channel.calls.size(), 1u);
  Json data = Json::array();
  for (int i = 0; i < 4; ++i) data.push_back(Json{{"index", i}, {"embedding", {1.0, 0.0}}});
  std::move(channel.calls[0].done)(Json{{"data", data}, {"usage", {{"prompt_tokens", 10}}}},
                                   CallInfo{/*attempts=*/1, /*hedges=*/2});
  int64_t tokens = 0;
  int hedges = 0;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(got[i].has_value() && got[i]->ok()) << i;
    tokens += (*got[i])->prompt_tokens;
    hedges += (*got[i])->hedges;
    EXPECT_EQ((*got[i])->retries, 0);
  }
  EXPECT_EQ((*got[0])->hedges, 2);
  EXPECT_EQ(hedges, 2);
  EXPECT_EQ(tokens, 30);  // the reply's 10, and 10 for each duplicate
}

// The wait is only paid while texts come closer together than it on average: texts 20 ms apart (a few
// loops) go at once; when they come together again, they wait for company again.
TEST(OpenAiEmbedderTest, TextsThatComeFarApartAreNotKeptWaiting) {
  ScriptedChannel channel;
  FakeClock clock;
  ManualTimers timers(&clock);
  OpenAiEmbedder embedder(Endpoint(), &channel, &timers, &clock);
  auto ignore = [](absl::StatusOr<EmbedReply>) {};
  // The first text knows no gap yet: it waits.
  embedder.Embed({"first"}, ignore);
  EXPECT_EQ(channel.calls.size(), 0u);
  timers.FireAll();
  ASSERT_EQ(channel.calls.size(), 1u);
  // 20 ms gaps: the mean gap passes the 5 ms wait after a few, and from then on each text goes at once.
  size_t waited = 0;
  for (int i = 0; i < 8; ++i) {
    clock.Advance(absl::Milliseconds(20));
    const size_t before = channel.calls.size();
    embedder.Embed({absl::StrCat("apart ", i)}, ignore);
    if (channel.calls.size() == before) {
      ++waited;
      timers.FireAll();
    }
  }
  EXPECT_EQ(channel.calls.size(), 9u);  // one request per text either way
  EXPECT_LT(waited, 3u);
  const size_t timers_started = timers.delays.size();
  clock.Advance(absl::Milliseconds(20));
  embedder.Embed({"at once"}, ignore);
  EXPECT_EQ(channel.calls.size(), 10u);
  EXPECT_EQ(timers.delays.size(), timers_started) << "no wait was started";
  // A burst of texts together: the mean gap falls under the wait and they share requests again.
  for (int i = 0; i < 13; ++i) embedder.Embed({absl::StrCat("together ", i)}, ignore);
  timers.FireAll();
  EXPECT_LT(channel.calls.size(), 10u + 13u);
  size_t full = 0;
  for (size_t i = 10; i < channel.calls.size(); ++i) full += channel.calls[i].body["input"].size() == 4 ? 1 : 0;
  EXPECT_EQ(full, 2u);  // two full batches (embed_batch: 4) once the gaps shrank
}

// A burst (texts 100 us apart) goes as soon as it has been quiet for four mean gaps, at least 500 us,
// not after the whole embed_wait; texts that keep coming wait no longer than embed_wait for the first.
TEST(OpenAiEmbedderTest, ABatchGoesWhenItsBurstIsOverAndNeverWaitsLongerThanEmbedWait) {
  ScriptedChannel channel;
  FakeClock clock;
  ManualTimers timers(&clock);
  ModelEndpoint endpoint = Endpoint();
  endpoint.provider.embed_batch = 64;
  OpenAiEmbedder embedder(endpoint, &channel, &timers, &clock);
  auto ignore = [](absl::StatusOr<EmbedReply>) {};
  const absl::Time start = clock.Now();
  for (int i = 0; i < 6; ++i) {
    embedder.Embed({absl::StrCat("burst ", i)}, ignore);
    timers.RunFor(absl::Microseconds(100));
  }
  EXPECT_EQ(channel.calls.size(), 0u);
  // The last text came at +500 us; quiet until +1000 us.
  timers.RunFor(absl::Microseconds(399));
  EXPECT_EQ(channel.calls.size(), 0u);
  timers.RunFor(absl::Microseconds(1));
  ASSERT_EQ(channel.calls.size(), 1u);
  EXPECT_EQ(channel.calls[0].body["input"].size(), 6u);
  EXPECT_EQ(clock.Now() - start, absl::Microseconds(1000));

  // A steady stream a millisecond later, one text every 400 us: never quiet for four mean gaps, so the
  // batch goes embed_wait (5 ms) after its first text, holding the 13 texts that came by then.
  timers.RunFor(absl::Milliseconds(1));
  for (int i = 0; i < 12; ++i) {
    embedder.Embed({absl::StrCat("stream ", i)}, ignore);
    timers.RunFor(absl::Microseconds(400));
  }
  embedder.Embed({"stream 12"}, ignore);  // 4.8 ms after the first
  timers.RunFor(absl::Microseconds(199));
  ASSERT_EQ(channel.calls.size(), 1u);
  timers.RunFor(absl::Microseconds(1));
  ASSERT_EQ(channel.calls.size(), 2u);
  EXPECT_EQ(channel.calls[1].body["input"].size(), 13u);
}

TEST(OpenAiChatModelTest, ReasoningEffortIsSentAsEachProviderExpectsAndTemperatureCanBeOmitted) {
  ScriptedChannel channel;
  ChatRequest request;
  request.messages = {{"user", "list uses of a brick"}};
  request.temperature = 0.7;
  ModelEndpoint openai = Endpoint();
  openai.reasoning_effort = "high";
  openai.omit_temperature = true;
  auto model = OpenAiChatModel::Create(openai, &channel);
  ASSERT_TRUE(model.ok()) << model.status();
  Json body = Json::parse((*model)->RequestBody(request));
  EXPECT_EQ(body["reasoning_effort"], "high");
  EXPECT_FALSE(body.contains("reasoning"));
  EXPECT_FALSE(body.contains("temperature"));

  ModelEndpoint openrouter = Endpoint();
  openrouter.provider.name = "router";
  openrouter.provider.base_url = "https://openrouter.ai/api/v1";
  openrouter.reasoning_effort = "low";
  model = OpenAiChatModel::Create(openrouter, &channel);
  ASSERT_TRUE(model.ok()) << model.status();
  body = Json::parse((*model)->RequestBody(request));
  EXPECT_EQ(body["reasoning"], (Json{{"effort", "low"}}));
  EXPECT_FALSE(body.contains("reasoning_effort"));
  EXPECT_EQ(body["temperature"].get<double>(), 0.7);

  model = OpenAiChatModel::Create(Endpoint(), &channel);  // no effort: neither field
  body = Json::parse((*model)->RequestBody(request));
  EXPECT_FALSE(body.contains("reasoning") || body.contains("reasoning_effort"));
}

TEST(OpenAiChatModelTest, ReasoningTokensAreReadFromEitherPlace) {
  Json reply = Completion({{0, "a"}});
  reply["usage"]["completion_tokens_details"] = {{"reasoning_tokens", 5}, {"audio_tokens", 0}};
  absl::StatusOr<ChatReply> parsed = OpenAiChatModel::ParseReply(reply.dump(), 1);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->reasoning_tokens, 5);
  EXPECT_EQ(parsed->completion_tokens, 7);
  reply["usage"].erase("completion_tokens_details");
  reply["usage"]["reasoning_tokens"] = 3;
  EXPECT_EQ(OpenAiChatModel::ParseReply(reply.dump(), 1)->reasoning_tokens, 3);
  reply["usage"]["reasoning_tokens"] = -3;
  EXPECT_EQ(OpenAiChatModel::ParseReply(reply.dump(), 1)->reasoning_tokens, 0);
  EXPECT_EQ(OpenAiChatModel::ParseReply(Completion({{0, "a"}}).dump(), 1)->reasoning_tokens, 0);

  CallCounters counters;
  ChatReply counted;
  counted.prompt_tokens = 2;
  counted.completion_tokens = 9;
  counted.reasoning_tokens = 7;
  counted.retries = 1;
  CountReply(counted, counters);
  EXPECT_EQ(counters.reasoning_tokens, 7);
  EXPECT_EQ(counters.completion_tokens, 9);
  EXPECT_EQ(ReasoningShare(counted, 0, 3) + ReasoningShare(counted, 1, 3) + ReasoningShare(counted, 2, 3), 7);
  EXPECT_EQ(ReasoningShare(counted, 0, 3), 3);
}

// Some OpenAI-compatible servers embed only the first input of a batch. The embedder then asks again one
// input per request, for this batch and every later one, instead of failing the units.
TEST(OpenAiEmbedderTest, AServerThatMiscountsABatchIsAskedOneInputAtATime) {
  ScriptedChannel channel;
  FakeClock clock;
  ManualTimers timers(&clock);
  ModelEndpoint endpoint = Endpoint();
  endpoint.provider.embed_batch = 3;
  OpenAiEmbedder embedder(endpoint, &channel, &timers, &clock);
  std::vector<std::optional<absl::StatusOr<EmbedReply>>> got(3);
  auto collect = [&got](int i) { return [&got, i](absl::StatusOr<EmbedReply> r) { got[i] = std::move(r); }; };
  embedder.Embed({"a"}, collect(0));
  embedder.Embed({"b", "c"}, collect(1));
  ASSERT_EQ(channel.calls.size(), 1u);
  const auto vector_reply = [](float x, int tokens) {
    return Json{{"data", {Json{{"index", 0}, {"embedding", {x, 1.0}}}}}, {"usage", {{"prompt_tokens", tokens}}}};
  };
  std::move(channel.calls[0].done)(vector_reply(9, 4), CallInfo{1, 1});  // one vector for three inputs
  ASSERT_EQ(channel.calls.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(channel.calls[1 + i].body["input"], (Json{std::string(1, static_cast<char>('a' + i))}));
  }
  EXPECT_FALSE(got[0].has_value());  // nothing is delivered until every single answer is in
  for (int i = 2; i >= 0; --i)
    std::move(channel.calls[1 + i].done)(vector_reply(static_cast<float>(i), 2), CallInfo{1, i == 1 ? 1 : 0});
  ASSERT_TRUE(got[0].has_value() && got[0]->ok()) << (got[0] ? got[0]->status().ToString() : "none");
  ASSERT_TRUE(got[1].has_value() && got[1]->ok());
  EXPECT_EQ((*got[0])->vectors, (std::vector<Embedding>{{0.0f, 1.0f}}));
  EXPECT_EQ((*got[1])->vectors, (std::vector<Embedding>{{1.0f, 1.0f}, {2.0f, 1.0f}}));
  // The miscounted request's usage too, and each hedged duplicate's (one of the batch, one of "b").
  EXPECT_EQ((*got[0])->prompt_tokens + (*got[1])->prompt_tokens, 2 * 4 + 6 + 2);
  EXPECT_EQ((*got[0])->hedges + (*got[1])->hedges, 2);

  // Later batches go one input per request from the start; a failed single request fails its batch.
  embedder.Embed({"d", "e", "f"}, collect(2));
  ASSERT_EQ(channel.calls.size(), 7u);
  EXPECT_EQ(channel.calls[4].body["input"], (Json{"d"}));
  std::move(channel.calls[4].done)(vector_reply(1, 1), CallInfo{1});
  std::move(channel.calls[5].done)(absl::InvalidArgumentError("provider 'local': HTTP 400"), CallInfo{1});
  EXPECT_FALSE(got[2].has_value());
  std::move(channel.calls[6].done)(vector_reply(1, 1), CallInfo{1});
  ASSERT_TRUE(got[2].has_value());
  EXPECT_EQ(got[2]->status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace noveltygrid
