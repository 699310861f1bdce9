// The NoveltyBench parts of a unit travel to the worker and back intact: the gRPC messages
// (proto/wire.h) and the journal's JSON (common/records_json.h) round-trip every field.
#include "proto/wire.h"

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

}  // namespace
}  // namespace noveltygrid
