// The NoveltyBench parts of a unit travel to the worker and back intact: the gRPC messages
// (proto/wire.h) and the journal's JSON (common/records_json.h) round-trip every field.
#include "proto/wire.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/records_json.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

UnitSpec NoveltyUnit() {
  UnitSpec u;
  u.id = "u1";
  u.index = 7;
  u.benchmark = kNoveltyBench;
  u.model = "sim:explorer";
  u.temperature = 1.0;
  u.item_id = "curated-3";
  u.item_text = "Name a color.";
  u.mode = kModeParaphrase;
  u.dataset = "curated";
  u.paraphrases = {"Say a colour.", "Which color comes to mind?"};
  return u;
}

NoveltyOutcome Outcome() {
  NoveltyOutcome n;
  n.partition = {0, 0, 1};
  n.quality = {7, std::nullopt, 10};
  n.reward = {-4.5, std::nullopt, 0.25};
  return n;
}

TEST(WireTest, NoveltyUnitRoundTrips) {
  v1::Unit proto;
  ToProto(NoveltyUnit(), &proto);
  const UnitSpec back = FromProto(proto);
  EXPECT_EQ(back.mode, kModeParaphrase);
  EXPECT_EQ(back.dataset, "curated");
  EXPECT_EQ(back.paraphrases, NoveltyUnit().paraphrases);
  EXPECT_EQ(back.item_id, "curated-3");
  EXPECT_EQ(back.index, 7);
}

TEST(WireTest, NoveltySettingsRoundTrip) {
  NoveltySettings s;  // the message itself
  s.set_seed(99);
  s.set_k(4);
  s.set_max_tokens(300);
  s.set_ask_n(false);
  s.set_partitioner("llm");
  s.set_threshold(0.6);
  s.set_partition_model("sim:judge");
  s.set_quality("llm");
  s.set_quality_model("sim:judge");
  s.set_patience(0.5);
  s.set_in_context_followup("again");
  s.set_system_prompt("be original");
  s.set_equivalence_prompt("{prompt} {answer1} {answer2}");
  s.set_quality_prompt("{prompt} {response}");
  ModelEndpoint e;
  e.name = "sim:judge";
  e.remote_model = "judge";
  e.provider.name = "sim";
  e.provider.base_url = "http://127.0.0.1:1/v1";
  ToProto(e, s.add_endpoints());
  NoveltySettings back;
  ASSERT_TRUE(back.ParseFromString(s.SerializeAsString()));
  EXPECT_EQ(back.DebugString(), s.DebugString());  // every field, the endpoint included
  const std::map<std::string, ModelEndpoint> endpoints = EndpointsByName(back.endpoints());
  ASSERT_EQ(endpoints.count("sim:judge"), 1u);
  EXPECT_EQ(endpoints.at("sim:judge").provider.base_url, "http://127.0.0.1:1/v1");
  EXPECT_EQ(NoveltySettingsHash(back), NoveltySettingsHash(s));
}

TEST(WireTest, NoveltyOutcomeKeepsUnscoredGenerations) {
  v1::NoveltyOutcome proto;
  ToProto(Outcome(), &proto);
  ASSERT_EQ(proto.scores_size(), 3);
  EXPECT_FALSE(proto.scores(1).has_quality());
  const NoveltyOutcome back = FromProto(proto);
  EXPECT_EQ(back.partition, Outcome().partition);
  EXPECT_EQ(back.quality, Outcome().quality);
  EXPECT_EQ(back.reward, Outcome().reward);
}

TEST(WireTest, SharedSettingsGoToTheLeasesOfTheirBenchmarkOnly) {
  v1::LeaseResponse response;
  for (const char* benchmark : {kAidanBench, kNoveltyBench, kAidanBench, "other", kAidanBench}) {
    v1::Lease* lease = response.add_leases();
    lease->set_lease_id(absl::StrCat("l", response.leases_size()));
    lease->mutable_unit()->set_benchmark(benchmark);
    lease->mutable_unit()->set_id(absl::StrCat("u", response.leases_size()));
  }
  // The last lease brings settings of its own (as a coordinator that does not share them sends).
  response.mutable_leases(4)->mutable_aidan()->set_judge("own");
  response.mutable_leases(4)->mutable_aidan()->add_endpoints()->set_name("own");
  v1::Lease* aidan = response.add_shared();
  aidan->mutable_unit()->set_benchmark(kAidanBench);
  aidan->mutable_aidan()->set_judge("judge");
  aidan->mutable_aidan()->add_endpoints()->set_name("m");
  v1::Lease* novelty = response.add_shared();
  novelty->mutable_unit()->set_benchmark(kNoveltyBench);
  novelty->mutable_novelty()->set_k(10);

  EXPECT_EQ(SharedSettingsFor(response, kNoveltyBench), &response.shared(1));
  EXPECT_EQ(SharedSettingsFor(response, "other"), nullptr);

  TakeSharedSettings(&response);
  EXPECT_EQ(response.shared_size(), 0);
  for (int i : {0, 2}) {
    const v1::Lease& lease = response.leases(i);
    EXPECT_EQ(lease.aidan().judge(), "judge");
    EXPECT_EQ(lease.aidan().endpoints_size(), 1);
    EXPECT_FALSE(lease.has_novelty());
    EXPECT_EQ(lease.unit().id(), absl::StrCat("u", i + 1));  // its own unit, untouched
    EXPECT_EQ(lease.unit().benchmark(), kAidanBench);
  }
  EXPECT_EQ(response.leases(1).novelty().k(), 10);
  EXPECT_FALSE(response.leases(1).has_aidan());
  EXPECT_FALSE(response.leases(3).has_aidan());  // no entry for its benchmark: left as it was
  EXPECT_FALSE(response.leases(3).has_novelty());
  EXPECT_EQ(response.leases(4).aidan().judge(), "own");  // kept, not merged over
  ASSERT_EQ(response.leases(4).aidan().endpoints_size(), 1);
  EXPECT_EQ(response.leases(4).aidan().endpoints(0).name(), "own");

  // A response without shared settings (an older coordinator): nothing changes.
  v1::LeaseResponse plain;
  plain.add_leases()->mutable_aidan()->set_judge("own");
  const std::string before = plain.SerializeAsString();
  TakeSharedSettings(&plain);
  EXPECT_EQ(plain.SerializeAsString(), before);
}

TEST(RecordsJsonTest, NoveltyResultRoundTripsThroughTheJournalForm) {
  UnitResult r;
  r.unit = NoveltyUnit();
  r.answers.push_back(StepRecord{1, "red", 0, 0, std::nullopt, false, ""});
  r.answers.push_back(StepRecord{2, "red", 0, 0, std::nullopt, false, ""});
  r.answers.push_back(StepRecord{3, "blue", 0, 0, std::nullopt, false, ""});
  r.stop_reason = kStopComplete;
  r.novelty = Outcome();
  const Json j = UnitResultToJson(r);
  absl::StatusOr<UnitResult> back = UnitResultFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->unit.mode, kModeParaphrase);
  EXPECT_EQ(back->unit.paraphrases, r.unit.paraphrases);
  ASSERT_TRUE(back->novelty.has_value());
  EXPECT_EQ(back->novelty->quality, Outcome().quality);
  EXPECT_EQ(back->novelty->reward, Outcome().reward);
  EXPECT_EQ(UnitResultToJson(*back), j);
}

TEST(RecordsJsonTest, AidanResultsKeepTheirForm) {
  UnitResult r;
  r.unit.id = "a";
  r.unit.benchmark = kAidanBench;
  r.stop_reason = kStopIncoherent;
  const Json j = UnitResultToJson(r);
  EXPECT_FALSE(j.contains("novelty"));
  EXPECT_FALSE(j.at("unit").contains("mode"));
  EXPECT_FALSE(j.at("unit").contains("paraphrases"));
}

// Int fields hold ints: a number beyond int's range (or with a fraction) is an error, not a cast -- which
// nlohmann's get<int>() makes even when it is undefined (found by tests/fuzz/journal_fuzz: a legacy
// journal line with "max_iterations": 1.9e19).
TEST(RecordsJsonTest, IntFieldsOutsideIntAreErrorsNotCasts) {
  UnitResult r;
  r.unit = NoveltyUnit();
  r.answers.push_back(StepRecord{1, "a", 0, 0, std::nullopt, false, ""});
  r.novelty = Outcome();
  const Json good = UnitResultToJson(r);
  ASSERT_TRUE(UnitResultFromJson(good).ok());
  for (const auto& [pointer, value] : std::vector<std::pair<std::string, Json>>{{"/max_iterations", 1.9e19},
                                                                                {"/max_iterations", 1.5},
                                                                                {"/unit/index", 4e9},
                                                                                {"/unit/repeat", -1e300},
                                                                                {"/answers/0/answer_num", 2147483648.0},
                                                                                {"/novelty/partition/1", 1e300},
                                                                                {"/novelty/quality/0", 7.5},
                                                                                {"/novelty/partition", 3},
                                                                                {"/unit/index", "3"}}) {
    Json bad = good;
    bad[Json::json_pointer(pointer)] = value;
    absl::StatusOr<UnitResult> read = UnitResultFromJson(bad);
    EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument) << pointer << " = " << value;
  }
  Json whole = good;
  whole["max_iterations"] = 12.0;  // an integral double is an int
  ASSERT_TRUE(UnitResultFromJson(whole).ok());
  EXPECT_EQ(UnitResultFromJson(whole)->max_iterations, 12);
}

// "calls" comes from a summary.json people may edit (report) and from old journals: odd entries are
// read leniently instead of throwing (found by tests/fuzz/results_rows_fuzz: a string for an entry).
TEST(RecordsJsonTest, CallStatsReadOddEntriesWithoutThrowing) {
  const Json calls = Json::parse(R"({"generate:m": {"requests": 3, "prompt_tokens": "12", "retries": 1e300,
      "errors": 18446744073709551615, "completion_tokens": -2}, "judge:j": "oops", "embed:e": [1], "x": null})");
  CallStats read;
  ASSERT_NO_THROW(read = CallStatsFromJson(calls));
  ASSERT_EQ(read.size(), 1u);
  const CallCounters& c = read.at("generate:m");
  EXPECT_EQ(c.requests, 3);
  EXPECT_EQ(c.prompt_tokens, 0);
  EXPECT_EQ(c.retries, 0);
  EXPECT_EQ(c.errors, INT64_MAX);
  EXPECT_EQ(c.completion_tokens, -2);
  EXPECT_TRUE(CallStatsFromJson(Json("not an object")).empty());
}

// The coordinator reads a reported step's answer_num from its bytes (StepAnswerNum), not from a parse.
TEST(StepAnswerNumTest, ReadsTheAnswerNumberOfAWellFormedStepOnly) {
  v1::Step step;
  step.set_answer(std::string(300, 'a'));  // a two-byte length
  step.set_coherence(80);
  step.add_embedding(0.5f);
  step.set_error("e");
  EXPECT_EQ(StepAnswerNum(step.SerializeAsString()), 0);  // proto3: an unset answer_num is 0
  step.set_answer_num(12345);
  const std::string bytes = step.SerializeAsString();
  EXPECT_EQ(StepAnswerNum(bytes), 12345);
  step.set_answer_num(-3);  // ten bytes on the wire
  EXPECT_EQ(StepAnswerNum(step.SerializeAsString()), -3);
  EXPECT_EQ(StepAnswerNum(""), 0);

  // Cut anywhere inside, the step is not well formed, whatever field the cut falls in.
  int refused = 0;
  for (size_t cut = 1; cut < bytes.size(); ++cut) refused += StepAnswerNum(bytes.substr(0, cut)) ? 0 : 1;
  EXPECT_GE(refused, static_cast<int>(bytes.size()) - 5);  // a cut between two whole fields still scans
  EXPECT_EQ(StepAnswerNum(bytes.substr(0, bytes.size() - 1)), std::nullopt);
  EXPECT_EQ(StepAnswerNum(bytes + "\x0c"), std::nullopt);      // a group's end with no start
  EXPECT_EQ(StepAnswerNum(bytes + "\x80"), std::nullopt);      // a tag cut short
  EXPECT_EQ(StepAnswerNum(bytes + "\x02\x00"), std::nullopt);  // field number 0
  step.set_error("\xff not UTF-8");                            // walks well, but a string field must be UTF-8 to parse
  EXPECT_EQ(StepAnswerNum(step.SerializeAsString()), std::nullopt);
}

// The coordinator's reading of a Report (v1::ReceivedReport) sees each step as the bytes the worker
// serialized: the two messages share their wire form.
TEST(StepAnswerNumTest, AReportReadAsReceivedKeepsEachStepsBytes) {
  v1::ReportRequest report;
  report.set_worker_id("w");
  v1::LeaseSteps* lease = report.add_leases();
  lease->set_lease_id("l1");
  lease->set_fencing_token(uint64_t{1} << 40);
  for (int i = 1; i <= 3; ++i) {
    v1::Step* step = lease->add_steps();
    step->set_answer_num(i);
    step->set_answer(absl::StrCat("answer ", i));
    step->add_embedding(static_cast<float>(i));
  }
  v1::ReceivedReport received;
  ASSERT_TRUE(received.ParseFromString(report.SerializeAsString()));
  EXPECT_EQ(received.worker_id(), "w");
  ASSERT_EQ(received.leases_size(), 1);
  EXPECT_EQ(received.leases(0).lease_id(), "l1");
  EXPECT_EQ(received.leases(0).fencing_token(), uint64_t{1} << 40);
  ASSERT_EQ(received.leases(0).steps_size(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(received.leases(0).steps(i), lease->steps(i).SerializeAsString()) << i;
    EXPECT_EQ(StepAnswerNum(received.leases(0).steps(i)), i + 1);
  }
  EXPECT_EQ(received.SerializeAsString(), report.SerializeAsString());
}

}  // namespace
}  // namespace noveltygrid
