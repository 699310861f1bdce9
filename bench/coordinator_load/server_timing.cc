#include "bench/coordinator_load/server_timing.h"

#include <cmath>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "httplib.h"

namespace noveltygrid::load {
namespace {

constexpr absl::string_view kRpcFamily = "noveltygrid_rpc_duration_seconds";
constexpr absl::string_view kCommitFamily = "noveltygrid_commit_group_seconds";

// The value of `label` in a sample's label set (`method="Lease",le="0.05"`); empty when absent.
absl::string_view LabelValue(absl::string_view labels, absl::string_view label) {
  const std::string key = absl::StrCat(label, "=\"");
  for (size_t at = labels.find(key); at != absl::string_view::npos; at = labels.find(key, at + 1)) {
    if (at != 0 && labels[at - 1] != ',') continue;  // a label whose name only ends the same
    const size_t begin = at + key.size();
    const size_t end = labels.find('"', begin);
    if (end == absl::string_view::npos) return {};
    return labels.substr(begin, end - begin);
  }
  return {};
}

bool ParseNumber(absl::string_view text, double* out) {
  if (text == "+Inf") {
    *out = std::numeric_limits<double>::infinity();
    return true;
  }
  return absl::SimpleAtod(text, out);
}

}  // namespace

namespace {

// The samples of `family` in `text` into `out`, keyed by `key_prefix` and the value of `label`.
absl::Status ParseFamily(absl::string_view text, absl::string_view family, absl::string_view label,
                         absl::string_view key_prefix, ServerHistograms* out) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::ConsumePrefix(&line, family)) continue;
    const size_t open = line.find('{');
    const size_t close = line.rfind('}');
    if (open == absl::string_view::npos || close == absl::string_view::npos || close < open) {
      return absl::InvalidArgumentError(absl::StrCat("a ", family, " line without its ", label, ": ", line));
    }
    const absl::string_view suffix = line.substr(0, open);
    const absl::string_view labels = line.substr(open + 1, close - open - 1);
    const absl::string_view name = LabelValue(labels, label);
    double value = 0;
    if (name.empty() || !ParseNumber(absl::StripAsciiWhitespace(line.substr(close + 1)), &value)) {
      return absl::InvalidArgumentError(absl::StrCat("a ", family, " line does not parse: ", line));
    }
    ServerHistogram& h = (*out)[absl::StrCat(key_prefix, name)];
    if (suffix == "_count") {
      h.count = value;
    } else if (suffix == "_sum") {
      h.sum = value;
    } else if (suffix == "_bucket") {
      double le = 0;
      if (!ParseNumber(LabelValue(labels, "le"), &le)) {
        return absl::InvalidArgumentError(absl::StrCat("a bucket without a bound: ", line));
      }
      h.buckets.emplace_back(le, value);  // the exposition lists them ascending
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ServerHistograms> ParseServerHistograms(absl::string_view text) {
  ServerHistograms out;
  if (absl::Status rpc = ParseFamily(text, kRpcFamily, "method", "", &out); !rpc.ok()) return rpc;
  if (absl::Status commits = ParseFamily(text, kCommitFamily, "part", kCommitPrefix, &out); !commits.ok()) {
    return commits;
  }
  return out;
}

ServerHistograms Difference(const ServerHistograms& after, const ServerHistograms& before) {
  ServerHistograms out = after;
  for (auto& [method, h] : out) {
    const auto it = before.find(method);
    if (it == before.end()) continue;
    h.count -= it->second.count;
    h.sum -= it->second.sum;
    for (size_t i = 0; i < h.buckets.size() && i < it->second.buckets.size(); ++i) {
      h.buckets[i].second -= it->second.buckets[i].second;
    }
  }
  return out;
}

double Quantile(const ServerHistogram& histogram, double q) {
  if (histogram.count <= 0 || histogram.buckets.empty()) return 0;
  const double rank = q * histogram.count;
  double lower = 0;
  double below = 0;
  for (const auto& [le, calls] : histogram.buckets) {
    if (calls >= rank) {
      if (std::isinf(le)) return lower;
      return calls == below ? le : lower + (le - lower) * (rank - below) / (calls - below);
    }
    lower = le;
    below = calls;
  }
  return lower;
}

std::optional<double> ShareWithin(const ServerHistogram& histogram, double bound) {
  for (const auto& [le, calls] : histogram.buckets) {
    if (le == bound) return histogram.count <= 0 ? 1 : calls / histogram.count;
  }
  return std::nullopt;
}

absl::StatusOr<std::string> ScrapeMetrics(const std::string& address) {
  const size_t colon = address.rfind(':');
  int port = 0;
  if (colon == std::string::npos || colon == 0 || !absl::SimpleAtoi(address.substr(colon + 1), &port)) {
    return absl::InvalidArgumentError(absl::StrCat("expected HOST:PORT, got '", address, "'"));
  }
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  httplib::Client client(host, port);
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(5, 0);
  const httplib::Result reply = client.Get("/metrics");
  if (!reply) {
    return absl::UnavailableError(
        absl::StrCat("GET http://", address, "/metrics: ", httplib::to_string(reply.error())));
  }
  if (reply->status != 200) {
    return absl::UnavailableError(absl::StrCat("GET http://", address, "/metrics answered ", reply->status));
  }
  return reply->body;
}

}  // namespace noveltygrid::load
