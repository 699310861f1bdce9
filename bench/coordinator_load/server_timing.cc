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
constexpr absl::string_view kGroupFamily = "noveltygrid_commit_group_seconds";
constexpr absl::string_view kStoreFamily = "noveltygrid_commit_store_seconds";

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

// The samples of `family` in `text` into `out`: under `key_prefix` and the value of `label` when the
// family is labelled (then every sample must carry it), under `key_prefix` alone when `label` is empty.
absl::Status ParseFamily(absl::string_view text, absl::string_view family, absl::string_view label,
                         absl::string_view key_prefix, ServerHistograms* out) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const absl::string_view whole = line;
    if (!absl::ConsumePrefix(&line, family)) continue;
    auto unparsed = [&](absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat("a ", family, " line ", why, ": ", whole));
    };
    // "_bucket{method="Lease",le="0.05"} 99", or without labels "_count 40".
    absl::string_view suffix = line;
    absl::string_view labels;
    absl::string_view rest;
    if (const size_t open = line.find('{'); open != absl::string_view::npos) {
      const size_t close = line.rfind('}');
      if (close == absl::string_view::npos || close < open) return unparsed("does not parse");
      suffix = line.substr(0, open);
      labels = line.substr(open + 1, close - open - 1);
      rest = line.substr(close + 1);
    } else if (const size_t space = line.find(' '); space != absl::string_view::npos) {
      suffix = line.substr(0, space);
      rest = line.substr(space);
    }
    const absl::string_view name = label.empty() ? absl::string_view() : LabelValue(labels, label);
    if (!label.empty() && name.empty()) return unparsed(absl::StrCat("without its ", label));
    double value = 0;
    if (!ParseNumber(absl::StripAsciiWhitespace(rest), &value)) return unparsed("does not parse");
    ServerHistogram& h = (*out)[absl::StrCat(key_prefix, name)];
    if (suffix == "_count") {
      h.count = value;
    } else if (suffix == "_sum") {
      h.sum = value;
    } else if (suffix == "_bucket") {
      double le = 0;
      if (!ParseNumber(LabelValue(labels, "le"), &le)) return unparsed("without a bound");
      h.buckets.emplace_back(le, value);  // the exposition lists them ascending
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ServerHistograms> ParseServerHistograms(absl::string_view text) {
  ServerHistograms out;
  for (const absl::Status& parsed : {ParseFamily(text, kRpcFamily, "method", "", &out),
                                     ParseFamily(text, kGroupFamily, "", absl::StrCat(kCommitPrefix, "group"), &out),
                                     ParseFamily(text, kStoreFamily, "", absl::StrCat(kCommitPrefix, "store"), &out)}) {
    if (!parsed.ok()) return parsed;
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
