#include "bench/coordinator_load/server_timing.h"

#include <cmath>
#include <limits>
#include <string>

#include "gtest/gtest.h"

namespace noveltygrid::load {
namespace {

// A /metrics page as prometheus-cpp writes it: Lease with 100 calls (90 under 1 ms, 9 more under 50 ms,
// one over 1 s), Report with none, and another family that must be skipped.
constexpr char kPage[] = R"(# HELP noveltygrid_rpc_duration_seconds Time from ...
# TYPE noveltygrid_rpc_duration_seconds histogram
noveltygrid_rpc_duration_seconds_count{method="Lease"} 100
noveltygrid_rpc_duration_seconds_sum{method="Lease"} 1.75
noveltygrid_rpc_duration_seconds_bucket{method="Lease",le="0.001"} 90
noveltygrid_rpc_duration_seconds_bucket{method="Lease",le="0.05"} 99
noveltygrid_rpc_duration_seconds_bucket{method="Lease",le="1"} 99
noveltygrid_rpc_duration_seconds_bucket{method="Lease",le="+Inf"} 100
noveltygrid_rpc_duration_seconds_count{method="Report"} 0
noveltygrid_rpc_duration_seconds_sum{method="Report"} 0
noveltygrid_rpc_duration_seconds_bucket{method="Report",le="0.001"} 0
noveltygrid_rpc_duration_seconds_bucket{method="Report",le="+Inf"} 0
noveltygrid_workers 50
# TYPE noveltygrid_commit_group_seconds histogram
noveltygrid_commit_group_seconds_count 40
noveltygrid_commit_group_seconds_sum 0.8
noveltygrid_commit_group_seconds_bucket{le="0.01"} 30
noveltygrid_commit_group_seconds_bucket{le="+Inf"} 40
# TYPE noveltygrid_commit_store_seconds histogram
noveltygrid_commit_store_seconds_count 39
noveltygrid_commit_store_seconds_sum 0.5
noveltygrid_commit_store_seconds_bucket{le="0.01"} 35
noveltygrid_commit_store_seconds_bucket{le="+Inf"} 39
)";

TEST(ServerTimingTest, ParsesEachMethodsBucketsCountAndSum) {
  const absl::StatusOr<ServerHistograms> parsed = ParseServerHistograms(kPage);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), 4u);
  const ServerHistogram& lease = parsed->at("Lease");
  EXPECT_EQ(lease.count, 100);
  EXPECT_DOUBLE_EQ(lease.sum, 1.75);
  ASSERT_EQ(lease.buckets.size(), 4u);
  EXPECT_DOUBLE_EQ(lease.buckets[1].first, 0.05);
  EXPECT_EQ(lease.buckets[1].second, 99);
  EXPECT_TRUE(std::isinf(lease.buckets[3].first));
}

TEST(ServerTimingTest, ParsesTheCommittersGroupsAndStoreWrites) {
  const absl::StatusOr<ServerHistograms> parsed = ParseServerHistograms(kPage);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const ServerHistogram& group = parsed->at("commit group");
  EXPECT_EQ(group.count, 40);
  EXPECT_DOUBLE_EQ(group.sum, 0.8);
  ASSERT_EQ(group.buckets.size(), 2u);
  EXPECT_EQ(group.buckets[0].second, 30);
  EXPECT_EQ(parsed->at("commit store").count, 39);
  EXPECT_DOUBLE_EQ(parsed->at("commit store").sum, 0.5);
  // Unlabelled lines that do not parse are errors, as labelled ones are.
  EXPECT_FALSE(ParseServerHistograms("noveltygrid_commit_group_seconds_count many\n").ok());
  EXPECT_FALSE(ParseServerHistograms("noveltygrid_commit_store_seconds_bucket 3\n").ok());
}

TEST(ServerTimingTest, QuantilesInterpolateWithinTheBucketAsPrometheusDoes) {
  const ServerHistogram lease = ParseServerHistograms(kPage)->at("Lease");
  // Rank 50 of 100 falls in the first bucket (0 .. 1 ms, 90 calls): 50/90 of the way.
  EXPECT_NEAR(Quantile(lease, 0.5), 0.001 * 50 / 90, 1e-12);
  // Rank 99 is the last call of the (1 ms, 50 ms] bucket: its upper bound.
  EXPECT_NEAR(Quantile(lease, 0.99), 0.05, 1e-12);
  // Rank 99.5 falls in +Inf: the highest finite bound.
  EXPECT_NEAR(Quantile(lease, 0.995), 1, 1e-12);
  EXPECT_EQ(Quantile(ParseServerHistograms(kPage)->at("Report"), 0.99), 0);
}

TEST(ServerTimingTest, ShareWithinABoundIsExactAndOnlyAtABound) {
  const ServerHistograms parsed = *ParseServerHistograms(kPage);
  EXPECT_EQ(ShareWithin(parsed.at("Lease"), 50'000 / 1e6), 0.99);  // as main.cc asks for 50 ms
  EXPECT_EQ(ShareWithin(parsed.at("Lease"), 0.001), 0.9);
  EXPECT_EQ(ShareWithin(parsed.at("Lease"), 0.04), std::nullopt);  // between bounds: not known exactly
  EXPECT_EQ(ShareWithin(parsed.at("Report"), 0.001), 1);           // no calls
}

TEST(ServerTimingTest, TheDifferenceOfTwoScrapesIsTheWindowsCalls) {
  const ServerHistograms after = *ParseServerHistograms(kPage);
  ServerHistograms before = after;
  ServerHistogram& lease = before["Lease"];
  lease.count = 40;
  lease.sum = 0.5;
  lease.buckets = {{0.001, 40}, {0.05, 40}, {1, 40}, {std::numeric_limits<double>::infinity(), 40}};
  before.erase("Report");
  const ServerHistograms window = Difference(after, before);
  EXPECT_EQ(window.at("Lease").count, 60);
  EXPECT_DOUBLE_EQ(window.at("Lease").sum, 1.25);
  EXPECT_EQ(window.at("Lease").buckets[0].second, 50);
  EXPECT_EQ(window.at("Lease").buckets[1].second, 59);
  EXPECT_EQ(ShareWithin(window.at("Lease"), 0.05), 59.0 / 60);
  EXPECT_EQ(window.at("Report").count, 0);  // not in `before`: from zero
}

TEST(ServerTimingTest, ALineOfTheFamilyThatDoesNotParseIsAnError) {
  EXPECT_FALSE(ParseServerHistograms("noveltygrid_rpc_duration_seconds_count{method=\"Lease\"} many\n").ok());
  EXPECT_FALSE(ParseServerHistograms("noveltygrid_rpc_duration_seconds_bucket{method=\"Lease\"} 3\n").ok());
  EXPECT_FALSE(ParseServerHistograms("noveltygrid_rpc_duration_seconds_count 3\n").ok());
  EXPECT_TRUE(ParseServerHistograms("noveltygrid_other{method=\"Lease\"} many\n")->empty());
}

TEST(ServerTimingTest, AScrapeOfAnAddressNothingListensOnFails) {
  EXPECT_FALSE(ScrapeMetrics("not-an-address").ok());
  EXPECT_FALSE(ScrapeMetrics("[::1]:1").ok());
  EXPECT_FALSE(ScrapeMetrics("127.0.0.1:1").ok());
}

}  // namespace
}  // namespace noveltygrid::load
