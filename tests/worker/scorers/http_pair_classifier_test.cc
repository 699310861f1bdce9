// HttpPairClassifier over real loopback HTTP: against the in-process SimServer (the numbers must be
// exactly SimSameIdeaProbability's, batches must be split as configured) and against a canned server
// for the reply shapes serve-sim never sends.
#include "worker/scorers/http_pair_classifier.h"

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim_server/sim_server.h"
#include "tests/worker/scorers/scorer_test_env.h"
#include "worker/sim/sim_scoring.h"

namespace noveltygrid::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kKey[] = "scorers-test-key";

// `count` pairs covering identical, overlapping, unrelated, empty and non-ASCII texts.
std::vector<TextPair> MakePairs(int count) {
  const std::vector<std::string> texts = {
      "Use the brick as a doorstop.",
      "Use the brick as a heavy doorstop for the kitchen door.",
      "Grind the brick into red pigment for paint.",
      "A bookend that keeps cookbooks upright.",
      "",
      "Ziegel als Türstopper verwenden – ganz einfach.",
      "Heat the brick in the oven and wrap it in a towel as a bed warmer.",
  };
  std::vector<TextPair> pairs;
  for (int i = 0; i < count; ++i) {
    const std::string& a = texts[i % texts.size()];
    const std::string& b = texts[(i / texts.size() + i) % texts.size()];
    pairs.emplace_back(a, i % 3 == 0 ? b : absl::StrCat(b, " variant ", i));
  }
  return pairs;
}

std::unique_ptr<HttpPairClassifier> MakeClassifier(ChannelStack& stack, int max_batch = 32,
                                                   std::string same_label = "LABEL_1") {
  HttpPairClassifierOptions options;
  options.id = "sim-classifier";
  options.max_batch = max_batch;
  options.same_label = std::move(same_label);
  return CreateOnStack<HttpPairClassifier>(options, stack);
}

absl::StatusOr<ScoredPairs> Classify(PairClassifier& classifier, std::vector<TextPair> pairs,
                                     std::thread::id* thread = nullptr) {
  Waiter<ScoredPairs> waiter;
  classifier.Classify(std::move(pairs), waiter.Callback());
  absl::StatusOr<ScoredPairs> reply = waiter.Wait();
  if (thread != nullptr) *thread = waiter.thread();
  return reply;
}

class SimClassifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<int> port = server_.Start({.api_key = kKey});
    ASSERT_TRUE(port.ok()) << port.status();
    base_url_ = absl::StrCat("http://127.0.0.1:", *port);  // /predict sits at the root, as in TEI
  }

  SimServer server_;
  std::string base_url_;
};

TEST_F(SimClassifierTest, ProbabilitiesAreSimSameIdeaProbabilityInOrderAcrossBatches) {
  ChannelStack stack(base_url_, kKey);
  ASSERT_NE(stack.channel(), nullptr);
  std::unique_ptr<HttpPairClassifier> classifier = MakeClassifier(stack, /*max_batch=*/32);
  ASSERT_NE(classifier, nullptr);
  EXPECT_EQ(classifier->id(), "sim-classifier");

  const std::vector<TextPair> pairs = MakePairs(70);
  std::thread::id callback_thread;
  absl::StatusOr<ScoredPairs> scored = Classify(*classifier, pairs, &callback_thread);
  ASSERT_TRUE(scored.ok()) << scored.status();
  EXPECT_NE(callback_thread, std::this_thread::get_id());

  ASSERT_EQ(scored->same_probability.size(), pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(scored->same_probability[i], SimSameIdeaProbability(pairs[i].first, pairs[i].second)) << "pair " << i;
  }
  EXPECT_EQ(server_.stats().classify, 3);  // 32 + 32 + 6
  EXPECT_EQ(scored->call.requests, 3);
  EXPECT_EQ(scored->call.attempts, 3);
  EXPECT_EQ(scored->call.retries, 0);
}

TEST_F(SimClassifierTest, SplitsIntoBatchesOfAtMostMaxBatch) {
  ChannelStack stack(base_url_, kKey);
  ASSERT_NE(stack.channel(), nullptr);
  struct Case {
    int pairs, max_batch, requests;
  };
  int64_t sent = 0;
  for (const Case c : {Case{64, 32, 2}, Case{65, 32, 3}, Case{5, 1, 5}, Case{1, 32, 1}, Case{70, 100, 1}}) {
    std::unique_ptr<HttpPairClassifier> classifier = MakeClassifier(stack, c.max_batch);
    ASSERT_NE(classifier, nullptr);
    const std::vector<TextPair> pairs = MakePairs(c.pairs);
    absl::StatusOr<ScoredPairs> scored = Classify(*classifier, pairs);
    ASSERT_TRUE(scored.ok()) << scored.status();
    ASSERT_EQ(scored->same_probability.size(), pairs.size());
    for (size_t i = 0; i < pairs.size(); ++i) {
      EXPECT_EQ(scored->same_probability[i], SimSameIdeaProbability(pairs[i].first, pairs[i].second));
    }
    sent += c.requests;
    EXPECT_EQ(server_.stats().classify, sent) << c.pairs << " pairs, batch " << c.max_batch;
    EXPECT_EQ(scored->call.requests, c.requests);
  }
}

TEST_F(SimClassifierTest, EmptyCallAnswersOnTheExecutorWithoutARequest) {
  ChannelStack stack(base_url_, kKey);
  ASSERT_NE(stack.channel(), nullptr);
  std::unique_ptr<HttpPairClassifier> classifier = MakeClassifier(stack);
  ASSERT_NE(classifier, nullptr);
  std::thread::id callback_thread;
  absl::StatusOr<ScoredPairs> scored = Classify(*classifier, {}, &callback_thread);
  ASSERT_TRUE(scored.ok()) << scored.status();
  EXPECT_TRUE(scored->same_probability.empty());
  EXPECT_EQ(scored->call.requests, 0);
  EXPECT_NE(callback_thread, std::this_thread::get_id());
  EXPECT_EQ(server_.stats().classify, 0);
}

TEST_F(SimClassifierTest, AWrongKeyFailsNamingTheEndpoint) {
  ChannelStack stack(base_url_, "not-the-key");
  ASSERT_NE(stack.channel(), nullptr);
  std::unique_ptr<HttpPairClassifier> classifier = MakeClassifier(stack);
  ASSERT_NE(classifier, nullptr);
  absl::StatusOr<ScoredPairs> scored = Classify(*classifier, MakePairs(2));
  ASSERT_FALSE(scored.ok());
  EXPECT_EQ(scored.status().code(), absl::StatusCode::kUnauthenticated) << scored.status();
  EXPECT_THAT(std::string(scored.status().message()),
              HasSubstr(absl::StrCat("pair classifier 'sim-classifier' at ", base_url_, "/predict")));
  EXPECT_THAT(std::string(scored.status().message()), ::testing::Not(HasSubstr("not-the-key")));
}

TEST(HttpPairClassifierTest, ReadsTheSameLabelByNameInAnyOrder) {
  CannedServer canned;
  canned.Answer("/predict", 200,
                R"([[{"label":"LABEL_1","score":0.75},{"label":"LABEL_0","score":0.25}],)"
                R"([{"label":"LABEL_0","score":0.875},{"label":"LABEL_1","score":0.125}]])");
  ChannelStack stack(canned.base_url());
  ASSERT_NE(stack.channel(), nullptr);
  std::unique_ptr<HttpPairClassifier> classifier = MakeClassifier(stack);
  ASSERT_NE(classifier, nullptr);
  absl::StatusOr<ScoredPairs> scored = Classify(*classifier, {{"a", "b"}, {"c", "d"}});
  ASSERT_TRUE(scored.ok()) << scored.status();
  EXPECT_EQ(scored->same_probability, (std::vector<double>{0.75, 0.125}));
  EXPECT_EQ(nlohmann::json::parse(canned.last_body()),
            nlohmann::json::parse(R"({"inputs":[["a","b"],["c","d"]],"truncate":true})"));

  // A model whose config names the labels differently.
  canned.Answer("/predict", 200, R"([[{"label":"DIFFERENT","score":0.5},{"label":"SAME","score":0.5}]])");
  std::unique_ptr<HttpPairClassifier> renamed = MakeClassifier(stack, 32, "SAME");
  ASSERT_NE(renamed, nullptr);
  scored = Classify(*renamed, {{"a", "b"}});
  ASSERT_TRUE(scored.ok()) << scored.status();
  EXPECT_EQ(scored->same_probability, std::vector<double>{0.5});
}

TEST(HttpPairClassifierTest, RejectsMalformedRepliesNamingTheEndpoint) {
  CannedServer canned;
  ChannelStack stack(canned.base_url());
  ASSERT_NE(stack.channel(), nullptr);
  std::unique_ptr<HttpPairClassifier> classifier = MakeClassifier(stack);
  ASSERT_NE(classifier, nullptr);
  const std::string ok = R"([{"label":"LABEL_0","score":0.5},{"label":"LABEL_1","score":0.5}])";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {absl::StrCat("[", ok, "]"), "1 entries for 2 pairs"},
      {absl::StrCat("[", ok, ",", ok, ",", ok, "]"), "3 entries for 2 pairs"},
      {absl::StrCat("[", ok, R"(,[{"label":"LABEL_0","score":0.5}]])"), "entry 1 has no label 'LABEL_1'"},
      {absl::StrCat("[", ok, R"(,[{"label":"LABEL_1","score":"0.5"}]])"), "is string, not a number"},
      {absl::StrCat("[", ok, R"(,[{"label":"LABEL_1","score":null}]])"), "is null, not a number"},
      {absl::StrCat("[", ok, R"(,[{"label":"LABEL_1","score":true}]])"), "is boolean, not a number"},
      {absl::StrCat("[", ok, R"(,[{"label":"LABEL_1"}]])"), "has no 'score'"},
      {absl::StrCat("[", ok, R"(,[{"label":"LABEL_1","score":1.5}]])"), "not a probability"},
      {absl::StrCat("[", ok, R"(,[{"label":"LABEL_1","score":0.5},{"label":"LABEL_1","score":0.5}]])"), "twice"},
      {absl::StrCat("[", ok, R"(,[{"score":0.5}]])"), "without a string 'label'"},
      {absl::StrCat("[", ok, R"(,{"label":"LABEL_1","score":0.5}])"), "entry 1 is a JSON object"},
      {R"({"predictions":[]})", "not an array"},
  };
  ExpectRepliesRejected(canned, "/predict", "pair classifier 'sim-classifier'", cases, [&] {
    return Classify(*classifier, {{"a", "b"}, {"c", "d"}});
  });
}

TEST(HttpPairClassifierTest, AServerErrorFailsTheCall) {
  CannedServer canned;
  canned.Answer("/predict", 503, R"({"error":"model is loading"})");
  ChannelStack stack(canned.base_url());
  ASSERT_NE(stack.channel(), nullptr);
  std::unique_ptr<HttpPairClassifier> classifier = MakeClassifier(stack);
  ASSERT_NE(classifier, nullptr);
  absl::StatusOr<ScoredPairs> scored = Classify(*classifier, {{"a", "b"}});
  ASSERT_FALSE(scored.ok());
  EXPECT_THAT(std::string(scored.status().message()), HasSubstr("batch 1 of 1"));
  EXPECT_THAT(std::string(scored.status().message()), HasSubstr("503"));
  EXPECT_EQ(canned.requests(), 1);  // max_retries 0
}

TEST(HttpPairClassifierTest, CreateRejectsBadOptions) {
  CannedServer canned;
  ChannelStack stack(canned.base_url());
  ASSERT_NE(stack.channel(), nullptr);
  HttpPairClassifierOptions good;
  good.id = "c";
  EXPECT_TRUE(HttpPairClassifier::Create(good, stack.channel(), stack.executor()).ok());
  for (auto mutate : std::vector<void (*)(HttpPairClassifierOptions&)>{
           [](HttpPairClassifierOptions& o) { o.id = ""; }, [](HttpPairClassifierOptions& o) { o.path = "predict"; },
           [](HttpPairClassifierOptions& o) { o.max_batch = 0; },
           [](HttpPairClassifierOptions& o) { o.same_label = ""; }}) {
    HttpPairClassifierOptions bad = good;
    mutate(bad);
    EXPECT_EQ(HttpPairClassifier::Create(bad, stack.channel(), stack.executor()).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
  EXPECT_FALSE(HttpPairClassifier::Create(good, nullptr, stack.executor()).ok());
  EXPECT_FALSE(HttpPairClassifier::Create(good, stack.channel(), nullptr).ok());
}

}  // namespace
}  // namespace noveltygrid::testing
