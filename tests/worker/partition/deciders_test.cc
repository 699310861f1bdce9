// The four equivalence deciders: what each sends to its model, the raw scores it returns, its cache
// scope, the call counts, and the LLM judge's parse / retry / failure rules.
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/noveltybench/partition.h"
#include "common/noveltybench/prompts.h"
#include "common/noveltybench/unigram.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/worker/partition/fake_models.h"
#include "tests/worker/partition/test_generations.h"
#include "worker/partition/async_partition.h"
#include "worker/partition/classifier_decider.h"
#include "worker/partition/embedding_decider.h"
#include "worker/partition/equivalence_decider.h"
#include "worker/partition/llm_decider.h"
#include "worker/partition/unigram_decider.h"
#include "worker/sim/sim_judge_model.h"

namespace noveltygrid::nbtest {
namespace {

using ::testing::DoubleEq;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::optional<DeciderReply> Score(ManualExecutor& executor, EquivalenceDecider& decider, std::vector<TextPair> pairs,
                                  const std::string& prompt = kPrompt) {
  std::optional<DeciderReply> reply;
  decider.Score(prompt, std::move(pairs), [&reply](DeciderReply r) { reply = std::move(r); });
  executor.RunAll();
  return reply;
}

// ---- classifier ----

TEST(ClassifierDeciderTest, SendsEachTextCutToItsFirst128Words) {
  ManualExecutor executor;
  FakeClassifier classifier("clf", &executor, [](const std::string&, const std::string&) { return 0.25; });
  ClassifierDecider decider(&classifier, 0.102);
  std::string long_text = "line one\n";
  for (int i = 0; i < 200; ++i) absl::StrAppend(&long_text, "w", i, i % 10 == 9 ? "\n" : " ");
  std::optional<DeciderReply> reply = Score(executor, decider, {{long_text, "short answer here"}});
  ASSERT_TRUE(reply.has_value());
  ASSERT_TRUE(reply->scores.ok());
  EXPECT_THAT(*reply->scores, ElementsAre(DoubleEq(0.25)));
  ASSERT_EQ(classifier.batches.size(), 1u);
  const std::string& sent = classifier.batches[0][0].first;
  EXPECT_EQ(noveltybench::LowercaseWords(sent).size(), 128u);
  EXPECT_EQ(sent, long_text.substr(0, sent.size())) << "the kept part is the text as written";
  EXPECT_EQ(classifier.batches[0][0].second, "short answer here");
  EXPECT_EQ(reply->calls.requests, 1);  // in process: one call, no HTTP requests reported
}

TEST(ClassifierDeciderTest, ScopeIgnoresThePromptAndKindNamesTheModel) {
  ManualExecutor executor;
  FakeClassifier classifier("tei:deberta", &executor, nullptr);
  ClassifierDecider decider(&classifier, 0.102);
  EXPECT_EQ(decider.kind(), "classifier");
  EXPECT_EQ(decider.name(), "tei:deberta");
  EXPECT_EQ(decider.stats_key(), "classify:tei:deberta");
  const std::optional<EquivalenceScope> a = decider.CacheScope("prompt a");
  const std::optional<EquivalenceScope> b = decider.CacheScope("prompt b");
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(a->kind, "classifier");
  EXPECT_EQ(a->model, "tei:deberta");
  EXPECT_EQ(a->context, b->context);
  EXPECT_TRUE(decider.Equivalent(0.103));
  EXPECT_FALSE(decider.Equivalent(0.102));  // strictly greater, as the reference
}

// The same model id served as another remote model (or with other extra body fields) answers
// differently: its scores must not be looked up under the plain id.
TEST(ClassifierDeciderTest, ScopeSeparatesWhatTheEndpointChanges) {
  ManualExecutor executor;
  FakeClassifier classifier("tei:deberta", &executor, nullptr);
  DeciderOptions options;
  options.partitioner = "classifier";
  options.threshold = 0.102;
  options.classifier = &classifier;
  auto plain = MakeEquivalenceDecider(options);
  options.model_identity = "deberta-v3-large\n{}\n0";
  auto remote = MakeEquivalenceDecider(options);
  options.model_identity = "deberta-v3-base\n{}\n0";
  auto other = MakeEquivalenceDecider(options);
  ASSERT_TRUE(plain.ok() && remote.ok() && other.ok());
  EXPECT_EQ((*plain)->CacheScope("p")->model, "tei:deberta");
  EXPECT_NE((*remote)->CacheScope("p")->model, (*plain)->CacheScope("p")->model);
  EXPECT_NE((*remote)->CacheScope("p")->model, (*other)->CacheScope("p")->model);
  EXPECT_EQ((*remote)->stats_key(), "classify:tei:deberta");  // statistics stay under the id
}

TEST(ClassifierDeciderTest, AClassifierErrorIsTheBatchError) {
  ManualExecutor executor;
  FakeClassifier classifier("clf", &executor, nullptr);
  classifier.failure = absl::InvalidArgumentError("the reply has 1 entries for 2 pairs");
  ClassifierDecider decider(&classifier, 0.102);
  std::optional<DeciderReply> reply = Score(executor, decider, {{"a", "b"}, {"c", "d"}});
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->scores.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(reply->calls.errors, 1);
}

// ---- embedding ----

// Vectors of different sizes would have cosine 0 and count as different ideas; they fail the batch.
TEST(EmbeddingDeciderTest, VectorsOfDifferentSizesAreAnError) {
  ManualExecutor executor;
  FakeEmbedder embedder(&executor, 4);
  embedder.table["a"] = {1, 0, 0, 0};
  embedder.table["b"] = {1, 0, 0};
  EmbeddingDecider decider(&embedder, 0.5);
  std::optional<DeciderReply> reply = Score(executor, decider, {{"a", "b"}});
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->scores.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(reply->scores.status().message()), HasSubstr("vectors of 4 and 3 dimensions"));
}

TEST(EmbeddingDeciderTest, TheEmbeddersHedgesAreCounted) {
  ManualExecutor executor;
  FakeEmbedder embedder(&executor, 4);
  embedder.hedges = 1;
  EmbeddingDecider decider(&embedder, 0.5);
  std::optional<DeciderReply> reply = Score(executor, decider, {{"a", "b"}});
  ASSERT_TRUE(reply.has_value() && reply->scores.ok());
  EXPECT_EQ(reply->calls.requests, 1);
  EXPECT_EQ(reply->calls.hedges, 1);
  EXPECT_EQ(reply->calls.prompt_tokens, 2);
}

TEST(EmbeddingDeciderTest, CosinesFromEachTextEmbeddedOnce) {
  ManualExecutor executor;
  FakeEmbedder embedder(&executor, 4);
  embedder.table["a"] = {1, 0, 0, 0};
  embedder.table["b"] = {0.6f, 0.8f, 0, 0};
  embedder.table["c"] = {0, 0, 1, 0};
  EmbeddingDecider decider(&embedder, 0.5);
  std::optional<DeciderReply> reply = Score(executor, decider, {{"a", "b"}, {"a", "c"}});
  ASSERT_TRUE(reply.has_value() && reply->scores.ok());
  EXPECT_NEAR((*reply->scores)[0], 0.6, 1e-6);
  EXPECT_NEAR((*reply->scores)[1], 0.0, 1e-9);
  ASSERT_EQ(embedder.calls.size(), 1u);
  EXPECT_THAT(embedder.calls[0], ElementsAre("a", "b", "c"));  // "a" once
  EXPECT_EQ(reply->calls.requests, 1);
  EXPECT_EQ(reply->calls.prompt_tokens, 3);

  // Held texts need no call, and the reply comes inline.
  std::optional<DeciderReply> held;
  decider.Score(kPrompt, {{"b", "c"}, {"c", "a"}}, [&held](DeciderReply r) { held = std::move(r); });
  ASSERT_TRUE(held.has_value()) << "all texts were held: expected an inline reply";
  EXPECT_EQ(embedder.calls.size(), 1u);
  EXPECT_EQ(held->calls.requests, 0);
  // Only the new text is embedded.
  reply = Score(executor, decider, {{"a", "d"}});
  ASSERT_EQ(embedder.calls.size(), 2u);
  EXPECT_THAT(embedder.calls[1], ElementsAre("d"));
}

TEST(EmbeddingDeciderTest, ScopeCarriesTheDimensions) {
  ManualExecutor executor;
  FakeEmbedder embedder(&executor, 16);
  EmbeddingDecider decider(&embedder, 0.8);
  EXPECT_EQ(decider.stats_key(), "embed:fake-embedder");
  std::optional<EquivalenceScope> scope = decider.CacheScope(kPrompt);
  ASSERT_TRUE(scope.has_value());
  EXPECT_EQ(scope->kind, "embedding");
  EXPECT_EQ(scope->model, "fake-embedder:16");
}

TEST(EmbeddingDeciderTest, CosineOfZeroOrMismatchedVectorsIsZero) {
  EXPECT_DOUBLE_EQ(CosineSimilarity({0, 0}, {1, 0}), 0.0);
  EXPECT_DOUBLE_EQ(CosineSimilarity({1, 0}, {1, 0, 0}), 0.0);
  EXPECT_NEAR(CosineSimilarity({3, 4}, {6, 8}), 1.0, 1e-12);
}

// ---- llm ----

TEST(LlmDeciderTest, ParsesTheLastSimilarityScore) {
  EXPECT_EQ(LlmDecider::ParseSimilarity("<similarity_score>42</similarity_score>"), 0.42);
  EXPECT_EQ(LlmDecider::ParseSimilarity("<similarity_score>10</similarity_score> no, <similarity_score> 90 "
                                        "</similarity_score>"),
            0.9);
  EXPECT_EQ(LlmDecider::ParseSimilarity("<similarity_score>100</similarity_score>"), 1.0);
  EXPECT_EQ(LlmDecider::ParseSimilarity("<similarity_score>0</similarity_score>"), 0.0);
  EXPECT_EQ(LlmDecider::ParseSimilarity("<similarity_score>101</similarity_score>"), std::nullopt);
  EXPECT_EQ(LlmDecider::ParseSimilarity("<similarity_score>7.5</similarity_score>"), std::nullopt);
  EXPECT_EQ(LlmDecider::ParseSimilarity("similarity: 70"), std::nullopt);
}

TEST(LlmDeciderTest, AsksOneJudgeRequestPerPairWithTheTemplate) {
  ManualExecutor executor;
  FakeChat judge("judge", &executor, [](const ChatRequest&, int) { return "<similarity_score>70</similarity_score>"; });
  const noveltybench::NoveltyPrompts prompts = noveltybench::DefaultNoveltyPrompts();
  LlmDecider decider(&judge, prompts.equivalence_judge, 0.5, /*seed=*/99, /*judge_retries=*/2);
  std::optional<DeciderReply> reply = Score(executor, decider, {{"first a", "cand a"}, {"first b", "cand b"}});
  ASSERT_TRUE(reply.has_value() && reply->scores.ok());
  EXPECT_THAT(*reply->scores, ElementsAre(DoubleEq(0.7), DoubleEq(0.7)));
  ASSERT_EQ(judge.requests.size(), 2u);
  const ChatRequest& request = judge.requests[1];
  ASSERT_EQ(request.messages.size(), 1u);
  EXPECT_EQ(request.messages[0].role, "user");
  EXPECT_EQ(request.messages[0].content, noveltybench::EquivalenceJudgePrompt(prompts, kPrompt, "first b", "cand b"));
  EXPECT_EQ(request.temperature, 0);
  EXPECT_EQ(request.seed, 99u);
  EXPECT_EQ(request.n, 1);
  EXPECT_EQ(reply->calls.requests, 2);
  EXPECT_EQ(reply->calls.prompt_tokens, 20);
  EXPECT_EQ(reply->calls.completion_tokens, 10);
  EXPECT_EQ(decider.stats_key(), "judge:judge");
}

TEST(LlmDeciderTest, ReasksAnUnparseableReplyTwiceThenFails) {
  ManualExecutor executor;
  int calls = 0;
  int good_after = 2;  // replies before the first good one
  FakeChat judge("judge", &executor, [&](const ChatRequest&, int) {
    return calls++ < good_after ? std::string("I think they are similar.") : "<similarity_score>30</similarity_score>";
  });
  LlmDecider decider(&judge, noveltybench::DefaultNoveltyPrompts().equivalence_judge, 0.5, 0, 2);
  std::optional<DeciderReply> reply = Score(executor, decider, {{"a", "b"}});
  ASSERT_TRUE(reply.has_value());
  ASSERT_TRUE(reply->scores.ok()) << reply->scores.status();
  EXPECT_THAT(*reply->scores, ElementsAre(DoubleEq(0.3)));
  EXPECT_EQ(reply->calls.requests, 3);
  EXPECT_EQ(reply->calls.retries, 2);
  EXPECT_EQ(reply->calls.errors, 0);

  calls = 0;
  good_after = 3;
  reply = Score(executor, decider, {{"a", "b"}});
  ASSERT_TRUE(reply.has_value());
  ASSERT_FALSE(reply->scores.ok());
  EXPECT_THAT(reply->scores.status().message(), HasSubstr("after 3 attempts"));
  EXPECT_THAT(reply->scores.status().message(), HasSubstr("I think they are similar."));
  EXPECT_EQ(reply->calls.requests, 3);
  EXPECT_EQ(reply->calls.errors, 1);
}

TEST(LlmDeciderTest, AFailedCallIsNotReasked) {
  ManualExecutor executor;
  FakeChat judge("judge", &executor, [](const ChatRequest&, int) { return "<similarity_score>30</similarity_score>"; });
  judge.fail = [](const ChatRequest&) { return absl::ResourceExhaustedError("429 after 6 retries"); };
  LlmDecider decider(&judge, noveltybench::DefaultNoveltyPrompts().equivalence_judge, 0.5, 0, 2);
  std::optional<DeciderReply> reply = Score(executor, decider, {{"a", "b"}});
  ASSERT_TRUE(reply.has_value());
  ASSERT_FALSE(reply->scores.ok());
  EXPECT_THAT(reply->scores.status().message(), HasSubstr("429 after 6 retries"));
  EXPECT_EQ(judge.requests.size(), 1u);
  EXPECT_EQ(reply->calls.errors, 1);
}

TEST(LlmDeciderTest, ScopeDependsOnPromptAndTemplate) {
  ManualExecutor executor;
  FakeChat judge("judge", &executor, nullptr);
  LlmDecider a(&judge, "T1 {prompt} {answer1} {answer2}", 0.5, 0, 2);
  LlmDecider b(&judge, "T2 {prompt} {answer1} {answer2}", 0.5, 0, 2);
  EXPECT_EQ(a.CacheScope("p")->context, a.CacheScope("p")->context);
  EXPECT_NE(a.CacheScope("p")->context, a.CacheScope("q")->context);
  EXPECT_NE(a.CacheScope("p")->context, b.CacheScope("p")->context);
  EXPECT_EQ(a.CacheScope("p")->kind, "llm");
  EXPECT_EQ(a.CacheScope("p")->model, "judge");
}

// The default template works with the simulated judge: the llm partition equals GreedyPartition with
// the judge's similarity / 100 > threshold.
class SimJudgeEquivalence : public noveltybench::Equivalence {
 public:
  explicit SimJudgeEquivalence(double threshold) : threshold_(threshold) {}
  bool Equivalent(std::string_view, std::string_view first, std::string_view candidate) const override {
    return SimJudgeModel::ScoreSimilarity(first, candidate) / 100.0 > threshold_;
  }

 private:
  double threshold_;
};

TEST(LlmDeciderTest, WithTheSimulatedJudgeMatchesGreedyPartition) {
  ManualExecutor executor;
  absl::StatusOr<std::unique_ptr<SimJudgeModel>> judge = SimJudgeModel::Create("sim:judge", &executor);
  ASSERT_TRUE(judge.ok());
  LlmDecider decider(judge->get(), noveltybench::DefaultNoveltyPrompts().equivalence_judge, 0.5, 0, 2);
  for (const std::vector<std::string>& generations : nbtest::GenerationSets(8, 10, /*seed=*/5)) {
    std::optional<PartitionOutcome> outcome;
    PartitionAsync(kPrompt, generations, &decider, nullptr, [&outcome](PartitionOutcome o) { outcome = std::move(o); });
    executor.RunAll();
    ASSERT_TRUE(outcome.has_value() && outcome->partition.ok());
    EXPECT_EQ(*outcome->partition, noveltybench::GreedyPartition(kPrompt, generations, SimJudgeEquivalence(0.5)));
    EXPECT_EQ(outcome->calls["judge:sim:judge"].errors, 0);
  }
}

// ---- unigram ----

TEST(UnigramDeciderTest, RougeOneInlineWithoutCacheOrStats) {
  UnigramDecider decider(noveltybench::kDefaultUnigramThreshold);
  std::optional<DeciderReply> reply;
  decider.Score(kPrompt, {{"the cat sat on the mat", "the cat sat on a mat"}, {"red", "blue"}},
                [&reply](DeciderReply r) { reply = std::move(r); });
  ASSERT_TRUE(reply.has_value()) << "unigram delivers inline";
  ASSERT_TRUE(reply->scores.ok());
  EXPECT_THAT(
      *reply->scores,
      ElementsAre(DoubleEq(noveltybench::Rouge1F("the cat sat on the mat", "the cat sat on a mat")), DoubleEq(0.0)));
  EXPECT_FALSE(decider.CacheScope(kPrompt).has_value());
  EXPECT_EQ(decider.stats_key(), "");
  EXPECT_EQ(decider.name(), "unigram");
}

// ---- factory ----

TEST(MakeEquivalenceDeciderTest, BuildsEachKindFromItsModel) {
  ManualExecutor executor;
  FakeClassifier classifier("clf", &executor, nullptr);
  FakeEmbedder embedder(&executor);
  FakeChat judge("judge", &executor, nullptr);
  DeciderOptions options;
  options.threshold = 0.4;
  options.equivalence_judge = noveltybench::DefaultNoveltyPrompts().equivalence_judge;
  options.classifier = &classifier;
  options.embedder = &embedder;
  options.judge = &judge;
  for (const auto& [kind, name] : std::vector<std::pair<std::string, std::string>>{
           {"classifier", "clf"}, {"embedding", "fake-embedder"}, {"llm", "judge"}, {"unigram", "unigram"}}) {
    options.partitioner = kind;
    absl::StatusOr<std::unique_ptr<EquivalenceDecider>> decider = MakeEquivalenceDecider(options);
    ASSERT_TRUE(decider.ok()) << kind << ": " << decider.status();
    EXPECT_EQ((*decider)->kind(), kind);
    EXPECT_EQ((*decider)->name(), name);
    EXPECT_EQ((*decider)->threshold(), 0.4);
  }
}

TEST(MakeEquivalenceDeciderTest, RefusesWhatCannotWork) {
  DeciderOptions options;
  options.partitioner = "classifier";
  absl::StatusOr<std::unique_ptr<EquivalenceDecider>> made = MakeEquivalenceDecider(options);
  EXPECT_EQ(made.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(made.status().message(), HasSubstr("needs a pair classifier"));
  options.partitioner = "embedding";
  EXPECT_THAT(MakeEquivalenceDecider(options).status().message(), HasSubstr("needs an embedder"));
  options.partitioner = "llm";
  EXPECT_THAT(MakeEquivalenceDecider(options).status().message(), HasSubstr("needs a judge model"));
  options.partitioner = "rouge";
  EXPECT_THAT(MakeEquivalenceDecider(options).status().message(), HasSubstr("unknown partitioner 'rouge'"));
  options.partitioner = "unigram";
  options.threshold = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(MakeEquivalenceDecider(options).status().message(), HasSubstr("not a finite number"));
}

}  // namespace
}  // namespace noveltygrid::nbtest
