#include "common/unit_settings.h"

#include <set>
#include <vector>

#include "common/hashing.h"
#include "common/settings_hash.h"
#include "common/settings_proto.h"

namespace noveltygrid {

namespace {

// The endpoints of the named models only: a benchmark's settings carry (and hash) just the models
// its units call.
std::map<std::string, ModelEndpoint> EndpointsOf(const SweepConfig& config, const std::vector<std::string>& helpers) {
  std::set<std::string> names(helpers.begin(), helpers.end());
  for (const ModelSpec& m : config.models) names.insert(m.name);
  std::map<std::string, ModelEndpoint> endpoints;
  for (const auto& [name, endpoint] : config.endpoints) {
    if (names.count(name) > 0) endpoints.emplace(name, endpoint);
  }
  return endpoints;
}

}  // namespace

AidanSettings MakeAidanSettings(const SweepConfig& config) {
  AidanSettings s = config.aidanbench.has_value() ? config.aidanbench->settings : DefaultAidanSettings();
  s.set_seed(config.seed);
  s.set_judge(config.judge);
  s.set_embedder(config.embedder);
  ToProto(EndpointsOf(config, {config.judge, config.embedder}), s.mutable_endpoints());
  return s;
}

uint64_t AidanSettingsHash(const AidanSettings& s) {
  StableHasher hasher;
  AddSettings(s, hasher);
  return hasher.Finish();
}

NoveltySettings MakeNoveltySettings(const SweepConfig& config) {
  NoveltySettings s = config.noveltybench.has_value() ? config.noveltybench->settings : DefaultNoveltySettings();
  s.set_seed(config.seed);
  ToProto(EndpointsOf(config, {s.partition_model(), s.quality_model()}), s.mutable_endpoints());
  return s;
}

uint64_t NoveltySettingsHash(const NoveltySettings& s) {
  // ask_n counts: one request with n = k and k requests of n = 1 draw different samples.
  StableHasher hasher;
  hasher.Add("noveltybench");
  AddSettings(s, hasher);
  return hasher.Finish();
}

}  // namespace noveltygrid
