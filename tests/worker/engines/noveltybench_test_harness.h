// The NoveltyBench engine tests' shared harness: a recording generator whose texts follow from each
// request, a fake classifier that groups them by idea, a fake reward model, and a runner that drives
// one unit to its end on a ManualExecutor.
#ifndef NOVELTYGRID_TESTS_WORKER_ENGINES_NOVELTYBENCH_TEST_HARNESS_H_
#define NOVELTYGRID_TESTS_WORKER_ENGINES_NOVELTYBENCH_TEST_HARNESS_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/hashing.h"
#include "common/noveltybench/partition.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/worker/partition/fake_models.h"
#include "worker/engines/noveltybench_engine.h"

namespace noveltygrid::nbtest {

// The matchers the engine tests (noveltybench_engine_test.cc, noveltybench_scoring_test.cc) use.
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A generation: "idea X ..." where X (one of A, B, C) and the tail follow from the request (its seed,
// messages) and the choice index, so different requests and choices give different texts.
inline std::string Generate(const ChatRequest& request, int choice) {
  StableHasher hasher;
  hasher.Add(request.seed).Add(static_cast<uint64_t>(choice));
  for (const ChatMessage& m : request.messages) hasher.Add(m.role).Add(m.content);
  const uint64_t h = hasher.Finish();
  return absl::StrCat("idea ", std::string(1, "ABC"[h % 3]), " is my answer, take number ", h % 100000);
}

// The fake classifier's rule: same idea iff the second words ("A", "B", "C") match.
inline double SameIdea(const std::string& a, const std::string& b) {
  const std::vector<std::string> wa = absl::StrSplit(a, ' '), wb = absl::StrSplit(b, ' ');
  return wa.size() > 1 && wb.size() > 1 && wa[1] == wb[1] ? 0.95 : 0.01;
}

struct Outcome {
  UnitResult result;
  CallStats calls;
};

struct Harness {
  ManualExecutor executor;
  FakeChat generator{"gen", &executor, Generate};
  FakeClassifier classifier{"clf", &executor, SameIdea};
  FakeReward reward{"rm", &executor, [](const std::string&, const std::string&) { return -3.0; }};
  NoveltySettings settings = DefaultNoveltySettings();
  UnitSpec unit;
  NoveltyModels models;
  std::vector<StepRecord> samples;  // as on_sample saw them
  std::function<bool(const StepRecord&)> keep_going = [](const StepRecord&) { return true; };
  std::function<bool()> still_leased;  // empty: the engine is given no lease check
  int lease_checks = 0;
  int done_calls = 0;

  Harness() {
    settings.set_seed(42);
    settings.set_k(5);
    settings.set_max_tokens(300);
    unit.id = "u1";
    unit.benchmark = kNoveltyBench;
    unit.model = "gen";
    unit.temperature = 0.9;
    unit.item_id = "brick";
    unit.item_text = kPrompt;
    unit.mode = kModeStandard;
    unit.dataset = "curated";
    models.generator = &generator;
    models.classifier = &classifier;
    models.reward = &reward;
  }

  Outcome Run(std::vector<StepRecord> checkpoint = {}) {
    std::optional<Outcome> outcome;
    RunNoveltyUnit(
        settings, models, unit, std::move(checkpoint),
        [this](absl::Span<const StepRecord> sofar, const CallStats&) {
          // The observer sees every generation so far, in order, the new one last.
          EXPECT_EQ(sofar.back().answer_num, static_cast<int>(sofar.size()));
          samples.push_back(sofar.back());
          return keep_going(sofar.back());
        },
        [this, &outcome](UnitResult result, CallStats calls) {
          ++done_calls;
          outcome = Outcome{std::move(result), std::move(calls)};
        },
        still_leased ? LeaseCheck([this] {
          ++lease_checks;
          return still_leased();
        })
                     : LeaseCheck());
    executor.RunAll();
    EXPECT_EQ(done_calls, 1) << "on_done must run exactly once";
    EXPECT_TRUE(outcome.has_value());
    return outcome.has_value() ? std::move(*outcome) : Outcome{};
  }
};

inline std::vector<std::string> Texts(const std::vector<StepRecord>& answers) {
  std::vector<std::string> texts;
  for (const StepRecord& a : answers) texts.push_back(a.answer);
  return texts;
}

inline std::vector<StepRecord> Prefix(const std::vector<StepRecord>& answers, size_t n) {
  return std::vector<StepRecord>(answers.begin(), answers.begin() + n);
}

class RuleEquivalence : public noveltybench::Equivalence {
 public:
  explicit RuleEquivalence(std::function<double(const std::string&, const std::string&)> p, double t)
      : p_(std::move(p)), t_(t) {}
  bool Equivalent(std::string_view, std::string_view first, std::string_view candidate) const override {
    return p_(std::string(first), std::string(candidate)) > t_;
  }

 private:
  std::function<double(const std::string&, const std::string&)> p_;
  double t_;
};

}  // namespace noveltygrid::nbtest

#endif  // NOVELTYGRID_TESTS_WORKER_ENGINES_NOVELTYBENCH_TEST_HARNESS_H_
