// The sections of the sweep config below the top level, one parser each (config_aidanbench.cc,
// config_noveltybench.cc); config.cc reads the top level and calls them in file order. Internal to the
// config library. Errors in the format of common/config.h.
#ifndef NOVELTYGRID_COMMON_CONFIG_SECTIONS_H_
#define NOVELTYGRID_COMMON_CONFIG_SECTIONS_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config.h"
#include "common/config_reader.h"
#include "common/provider_yaml.h"
#include "yaml-cpp/yaml.h"

namespace noveltygrid {

// The `aidanbench:` section: questions, preset, templates and loop settings; `top_temperatures` are the
// default temperatures.
absl::StatusOr<AidanBenchConfig> ParseAidanBenchSection(const ConfigReader& reader, const YAML::Node& node,
                                                        const std::vector<double>& top_temperatures);

// The helper models of the noveltybench section, for routing.
struct NoveltyHelperRefs {
  std::optional<ModelRef> partition;  // none for the unigram partitioner
  std::optional<ModelRef> quality;
};

// The `noveltybench:` section: prompt sets, modes, partitioner, quality scorer and their models (the
// judge and embedder serve as defaults); fills `models` for routing.
absl::StatusOr<NoveltyBenchConfig> ParseNoveltyBenchSection(const ConfigReader& reader, const YAML::Node& node,
                                                            const std::vector<double>& top_temperatures,
                                                            const std::vector<ModelSpec>& generators,
                                                            const ModelRef& judge, const ModelRef& embedder,
                                                            NoveltyHelperRefs& models);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_CONFIG_SECTIONS_H_
