// PostInBatches with a fake channel that records each request and lets the test answer them in any
// order: reassembly in input order, call accounting, and which error wins when batches fail.
#include "worker/scorers/batched_post.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

using ::testing::HasSubstr;

class FakeChannel : public ProviderChannel {
 public:
  FakeChannel() { config_.base_url = "http://fake"; }

  const ProviderConfig& config() const override { return config_; }
  void PostJson(const std::string& path, Json body, JsonCallback done) override {
    requests.push_back({path, std::move(body), std::move(done)});
  }
  ProviderChannelStats Stats() const override { return {}; }

  // Answers request `i` on the test's thread.
  void Reply(size_t i, absl::StatusOr<Json> reply, int attempts = 1, int hedges = 0) {
    std::move(requests[i].done)(std::move(reply), CallInfo{attempts, hedges});
  }

  struct Request {
    std::string path;
    Json body;
    JsonCallback done;
  };
  std::vector<Request> requests;

 private:
  ProviderConfig config_;
};

// Items are the numbers 0..count-1; a batch's body lists them, a reply echoes them times ten.
Json Body(size_t begin, size_t end) {
  Json items = Json::array();
  for (size_t i = begin; i < end; ++i) items.push_back(i);
  return Json{{"items", std::move(items)}};
}

absl::StatusOr<std::vector<double>> Parse(const Json& reply, size_t expected) {
  if (!reply.contains("out") || reply["out"].size() != expected) return absl::InvalidArgumentError("bad count");
  std::vector<double> out;
  for (const Json& x : reply["out"]) out.push_back(x.get<double>());
  return out;
}

Json Answer(const Json& body) {
  Json out = Json::array();
  for (const Json& i : body["items"]) out.push_back(i.get<double>() * 10);
  return Json{{"out", std::move(out)}};
}

class BatchedPostTest : public ::testing::Test {
 protected:
  void Post(size_t count, int max_batch) {
    absl::StatusOr<BatchTarget> target = MakeBatchTarget("test scorer", &channel_, &pool_, "/score", max_batch);
    ASSERT_TRUE(target.ok()) << target.status();
    PostInBatches(*target, count, Body, Parse, [this](absl::StatusOr<BatchedNumbers> result) {
      ++calls_;
      result_.emplace(std::move(result));
    });
  }

  ThreadPool pool_{1};
  FakeChannel channel_;
  int calls_ = 0;
  std::optional<absl::StatusOr<BatchedNumbers>> result_;
};

TEST_F(BatchedPostTest, ReassemblesOutOfOrderRepliesInInputOrder) {
  Post(7, 3);
  ASSERT_EQ(channel_.requests.size(), 3u);
  EXPECT_EQ(channel_.requests[0].path, "/score");
  EXPECT_EQ(channel_.requests[2].body, Body(6, 7));
  channel_.Reply(2, Answer(channel_.requests[2].body));
  channel_.Reply(0, Answer(channel_.requests[0].body), /*attempts=*/3, /*hedges=*/1);
  EXPECT_EQ(calls_, 0);  // one batch still out
  channel_.Reply(1, Answer(channel_.requests[1].body), /*attempts=*/1, /*hedges=*/2);
  ASSERT_EQ(calls_, 1);
  ASSERT_TRUE(result_->ok()) << result_->status();
  EXPECT_EQ((*result_)->values, (std::vector<double>{0, 10, 20, 30, 40, 50, 60}));
  EXPECT_EQ((*result_)->call.requests, 3);
  EXPECT_EQ((*result_)->call.attempts, 5);
  EXPECT_EQ((*result_)->call.retries, 2);
  EXPECT_EQ((*result_)->call.hedges, 3);  // hedged duplicates of every batch, not in attempts
}

TEST_F(BatchedPostTest, WaitsForEveryBatchAndReportsTheFirstFailingOneInInputOrder) {
  Post(9, 3);
  ASSERT_EQ(channel_.requests.size(), 3u);
  channel_.Reply(2, absl::UnavailableError("provider 'p': HTTP 503"));
  channel_.Reply(1, Json{{"out", {1}}});  // wrong count
  EXPECT_EQ(calls_, 0);
  channel_.Reply(0, Answer(channel_.requests[0].body));
  ASSERT_EQ(calls_, 1);
  ASSERT_FALSE(result_->ok());
  EXPECT_EQ(result_->status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result_->status().message(), "test scorer at http://fake/score, batch 2 of 3 (items 3..5): bad count");
}

TEST_F(BatchedPostTest, ChannelErrorsKeepTheirCode) {
  Post(2, 32);
  ASSERT_EQ(channel_.requests.size(), 1u);
  channel_.Reply(0, absl::UnauthenticatedError("provider 'p': HTTP 401"));
  ASSERT_EQ(calls_, 1);
  EXPECT_EQ(result_->status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(std::string(result_->status().message()), HasSubstr("HTTP 401"));
}

TEST(MakeBatchTargetTest, ChecksItsParts) {
  FakeChannel channel;
  ThreadPool pool(1);
  EXPECT_TRUE(MakeBatchTarget("s", &channel, &pool, "/x", 1).ok());
  EXPECT_FALSE(MakeBatchTarget("s", nullptr, &pool, "/x", 1).ok());
  EXPECT_FALSE(MakeBatchTarget("s", &channel, nullptr, "/x", 1).ok());
  EXPECT_FALSE(MakeBatchTarget("s", &channel, &pool, "x", 1).ok());
  EXPECT_FALSE(MakeBatchTarget("s", &channel, &pool, "/x", 0).ok());
}

TEST(ReplyNumberTest, AcceptsNumbersOnly) {
  EXPECT_EQ(*ReplyNumber(Json(2), "n"), 2.0);
  EXPECT_EQ(*ReplyNumber(Json(-0.25), "n"), -0.25);
  for (const Json& bad : {Json("1"), Json(true), Json(nullptr), Json::array({1}), Json::object()}) {
    EXPECT_EQ(ReplyNumber(bad, "n").status().code(), absl::StatusCode::kInvalidArgument) << bad.dump();
  }
}

}  // namespace
}  // namespace noveltygrid
