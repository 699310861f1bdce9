#include "worker/metrics/worker_metrics.h"

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

// The request histogram's sample count and sum for one provider and outcome (-1 when no such series).
std::pair<int64_t, double> Requests(const WorkerMetrics& metrics, const std::string& provider,
                                    const std::string& outcome) {
  for (const prometheus::MetricFamily& family : metrics.Collect()) {
    if (family.name != "noveltygrid_request_duration_seconds") continue;
    for (const prometheus::ClientMetric& metric : family.metric) {
      std::map<std::string, std::string> labels;
      for (const prometheus::ClientMetric::Label& label : metric.label) labels[label.name] = label.value;
      if (labels["provider"] == provider && labels["outcome"] == outcome) {
        return {static_cast<int64_t>(metric.histogram.sample_count), metric.histogram.sample_sum};
      }
    }
  }
  return {-1, 0};
}

TEST(WorkerMetricsTest, RequestsAreCountedPerProviderAndOutcome) {
  WorkerMetrics metrics;
  metrics.ObserveRequest("openai", absl::Milliseconds(100), true);
  metrics.ObserveRequest("openai", absl::Milliseconds(300), true);
  metrics.ObserveRequest("openai", absl::Seconds(2), false);
  metrics.ObserveRequest("local", absl::Milliseconds(50), true);

  const auto [ok_count, ok_sum] = Requests(metrics, "openai", "ok");
  EXPECT_EQ(ok_count, 2);
  EXPECT_DOUBLE_EQ(ok_sum, 0.4);
  const auto [failed_count, failed_sum] = Requests(metrics, "openai", "failed");
  EXPECT_EQ(failed_count, 1);
  EXPECT_DOUBLE_EQ(failed_sum, 2.0);
  EXPECT_EQ(Requests(metrics, "local", "ok").first, 1);
  EXPECT_EQ(Requests(metrics, "local", "failed").first, -1);  // no series until a request fails
}

}  // namespace
}  // namespace noveltygrid
