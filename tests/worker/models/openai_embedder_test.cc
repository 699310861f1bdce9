// OpenAiEmbedder against a scripted ProviderChannel: strict reply parsing (float and base64 vectors), and
// the coalescing of concurrent calls -- by timers on a fake clock when embed_wait is set, by the executor's
// queue when it is not.
#include <cstdint>
#include <cstring>
#include <memory>
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
#include "worker/models/openai_models.h"

namespace noveltygrid {
namespace {

using modeltest::ScriptedChannel;
using modeltest::TestEndpoint;
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

// Each test's embedder, on the fixture's scripted channel, hand-run timers and executor, and fake clock.
class OpenAiEmbedderTest : public ::testing::Test {
 protected:
  OpenAiEmbedder& Make(ModelEndpoint endpoint = TestEndpoint()) {
    embedder_ = std::make_unique<OpenAiEmbedder>(std::move(endpoint), &channel, &timers, &executor, &clock);
    return *embedder_;
  }
  ScriptedChannel channel;
  FakeClock clock;  // does not move unless a test moves it
  ManualTimers timers{&clock};
  QueueExecutor executor;  // runs only when a test runs it (nothing is queued on it while embed_wait is set)

 private:
  std::unique_ptr<OpenAiEmbedder> embedder_;  // goes first
};

std::string Base64Floats(const std::vector<float>& v) {
  std::string bytes(v.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return absl::Base64Escape(bytes);
}

TEST_F(OpenAiEmbedderTest, ParsesFloatAndBase64VectorsByIndex) {
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
TEST_F(OpenAiEmbedderTest, Base64ReadsAsAbslDecodesIt) {
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

TEST_F(OpenAiEmbedderTest, ConcurrentCallsAreCoalescedIntoBoundedBatches) {
  OpenAiEmbedder& embedder = Make();
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
TEST_F(OpenAiEmbedderTest, AHedgedBatchsDuplicatesAreCountedOnceAndCosted) {
  OpenAiEmbedder& embedder = Make();
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
TEST_F(OpenAiEmbedderTest, TextsThatComeFarApartAreNotKeptWaiting) {
  OpenAiEmbedder& embedder = Make();
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
TEST_F(OpenAiEmbedderTest, ABatchGoesWhenItsBurstIsOverAndNeverWaitsLongerThanEmbedWait) {
  ModelEndpoint endpoint = TestEndpoint();
  endpoint.provider.embed_batch = 64;
  OpenAiEmbedder& embedder = Make(endpoint);
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

// Without a wait (embed_wait_ms: 0, the default), a text is not kept for company by any timer: its batch
// goes when the executor reaches the task queued with it, after the replies queued before it (here one
// thread runs them in order), whose texts join it.
TEST_F(OpenAiEmbedderTest, WithoutAWaitABatchGoesOnceTheRepliesAlreadyQueuedHaveRun) {
  ModelEndpoint endpoint = TestEndpoint();
  endpoint.provider.embed_wait = absl::ZeroDuration();
  OpenAiEmbedder& embedder = Make(endpoint);
  auto ignore = [](absl::StatusOr<EmbedReply>) {};
  // Two replies are queued when the first text comes; each embeds a text when it runs.
  executor.Schedule([&] { embedder.Embed({"queued 0"}, ignore); });
  executor.Schedule([&] { embedder.Embed({"queued 1"}, ignore); });
  embedder.Embed({"now"}, ignore);
  EXPECT_EQ(channel.calls.size(), 0u);
  executor.RunAll();
  ASSERT_EQ(channel.calls.size(), 1u);
  EXPECT_EQ(channel.calls[0].body["input"], (Json{"now", "queued 0", "queued 1"}));
  EXPECT_TRUE(timers.delays.empty()) << "no timer was started";
  // Alone, a text goes as soon as the executor gets to it; a full batch (embed_batch: 4) goes at once.
  embedder.Embed({"alone"}, ignore);
  executor.RunAll();
  ASSERT_EQ(channel.calls.size(), 2u);
  EXPECT_EQ(channel.calls[1].body["input"], (Json{"alone"}));
  embedder.Embed({"a", "b"}, ignore);
  embedder.Embed({"c", "d"}, ignore);
  ASSERT_EQ(channel.calls.size(), 3u);
  EXPECT_EQ(channel.calls[2].body["input"].size(), 4u);
  executor.RunAll();  // the full batch's flush finds nothing left to send
  EXPECT_EQ(channel.calls.size(), 3u);
  EXPECT_TRUE(timers.delays.empty());
}

// Some OpenAI-compatible servers embed only the first input of a batch. The embedder then asks again one
// input per request, for this batch and every later one, instead of failing the units.
TEST_F(OpenAiEmbedderTest, AServerThatMiscountsABatchIsAskedOneInputAtATime) {
  ModelEndpoint endpoint = TestEndpoint();
  endpoint.provider.embed_batch = 3;
  OpenAiEmbedder& embedder = Make(endpoint);
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
