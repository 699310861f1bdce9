// How a committed unit is stored: the record made from the worker's commit as sent is byte for byte
// the record of its result and calls, without the lease's fields or embeddings, and reads back as the
// commit; a journal entry that carries its record is stored with it.
#include "coordinator/state/committed_unit.h"

#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "noveltygrid/v1/coordinator.pb.h"
#include "proto/wire.h"
#include "tests/coordinator/state/commit_log_testing.h"

namespace noveltygrid::commit_log_testing {
namespace {

using ::testing::SizeIs;

// A result with every kind of step field set, and the calls beside it.
JournalEntry FullEntry() {
  JournalEntry entry{Result("u0", 3), Calls(3)};
  entry.result.answers[1].llm_novelty = 0.25;
  entry.result.answers[2].valid = false;
  entry.result.answers[2].reasoning_tokens = 40;
  entry.result.max_iterations = 50;
  entry.calls["embed:e"].cache_hits = 2;
  entry.calls["judge:j"].prompt_tokens = 900;
  return entry;
}

// The commit a worker sends for `entry`, as noveltygrid worker writes it.
v1::CompleteRequest CommitOf(const JournalEntry& entry) {
  v1::CompleteRequest commit;
  ToProto(entry.result, &commit);
  ToProto(entry.calls, commit.mutable_calls());
  commit.set_worker_id("worker-7");
  commit.set_lease_id("lease-9");
  commit.set_fencing_token(12);
  return commit;
}

TEST(CommittedUnitTest, TheCommitAsSentIsStoredAsItsResultWouldBe) {
  const JournalEntry entry = FullEntry();
  EXPECT_EQ(CommittedUnitBytes(CommitOf(entry)), CommittedUnitBytes(entry.result, entry.calls));
}

TEST(CommittedUnitTest, TheCommitsRecordLeavesOutTheLeaseAndEmbeddings) {
  const JournalEntry entry = FullEntry();
  v1::CompleteRequest commit = CommitOf(entry);
  commit.mutable_answers(0)->add_embedding(1.0f);  // a worker that sent one anyway
  const std::string record = CommittedUnitBytes(commit);
  EXPECT_EQ(record, CommittedUnitBytes(entry.result, entry.calls));
  v1::CompleteRequest stored;
  ASSERT_TRUE(stored.ParseFromString(record));
  EXPECT_EQ(stored.worker_id(), "");
  EXPECT_EQ(stored.lease_id(), "");
  EXPECT_EQ(stored.fencing_token(), 0u);
  EXPECT_EQ(stored.answers(0).embedding_size(), 0);
}

TEST(CommittedUnitTest, AnyLeaseFieldsAreLeftOutWhateverTheirSize) {
  const JournalEntry entry = FullEntry();
  const std::string expected = CommittedUnitBytes(entry.result, entry.calls);
  struct Lease {
    std::string worker_id, lease_id;
    uint64_t token;
  };
  const Lease leases[] = {
      {"", "", 0},    {"w", "", 0},
      {"", "l", 0},   {"", "", 1},
      {"", "l", 300}, {std::string(200, 'w'), std::string(20000, 'l'), ~uint64_t{0}},  // multi-byte lengths and token
  };
  for (const Lease& lease : leases) {
    v1::CompleteRequest commit = CommitOf(entry);
    commit.set_worker_id(lease.worker_id);
    commit.set_lease_id(lease.lease_id);
    commit.set_fencing_token(lease.token);
    EXPECT_EQ(CommittedUnitBytes(commit), expected)
        << lease.worker_id.size() << " / " << lease.lease_id.size() << " / " << lease.token;
  }
}

TEST(CommittedUnitTest, TheCommitsRecordReadsBackAsTheCommit) {
  const JournalEntry entry = FullEntry();
  absl::StatusOr<JournalEntry> back = CommittedUnitFromBytes(CommittedUnitBytes(CommitOf(entry)));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->result.unit.id, "u0");
  ASSERT_THAT(back->result.answers, SizeIs(3));
  EXPECT_EQ(back->result.answers[1].llm_novelty, 0.25);
  EXPECT_FALSE(back->result.answers[2].valid);
  EXPECT_EQ(back->result.answers[2].reasoning_tokens, 40);
  EXPECT_EQ(back->result.max_iterations, 50);
  EXPECT_EQ(back->calls.at("judge:j").prompt_tokens, 900);
  EXPECT_EQ(back->calls.at("embed:e").cache_hits, 2);
}

TEST(CommittedUnitTest, AnEntryIsStoredWithTheRecordItCarries) {
  JournalEntry entry = FullEntry();
  const std::string made = CommittedUnitBytes(entry);
  EXPECT_EQ(made, CommittedUnitBytes(entry.result, entry.calls));
  entry.record = "as sent";
  EXPECT_EQ(CommittedUnitBytes(entry), "as sent");
}

TEST(CommittedUnitTest, AnswersAreBytesOnTheWire) {
  // Not validated at each parse: a step with bytes that are not UTF-8 still parses (the JSON writers
  // replace them), where a string field would have failed the whole message.
  v1::Step step;
  step.set_answer("caf\xC3 \xFF");
  v1::Step back;
  ASSERT_TRUE(back.ParseFromString(step.SerializeAsString()));
  EXPECT_EQ(back.answer(), "caf\xC3 \xFF");
}

}  // namespace
}  // namespace noveltygrid::commit_log_testing
