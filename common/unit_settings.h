// What a stateless worker needs, besides the unit itself, to run a unit: the protocol settings and the
// ids of the helper models. The coordinator sends these with every lease; they never hold secrets.
#ifndef NOVELTYGRID_COMMON_UNIT_SETTINGS_H_
#define NOVELTYGRID_COMMON_UNIT_SETTINGS_H_

#include <cstdint>
#include <map>
#include <string>

#include "common/config.h"
#include "common/prompts.h"
#include "noveltygrid/v1/settings.pb.h"

namespace noveltygrid {

// AidanBench protocol settings (the config's `aidanbench:` section with the top-level seed, judge and
// embedder), sent with every AidanBench lease: the message itself (proto/noveltygrid/v1/settings.proto).
// Its endpoints tell how to reach the models served over HTTP (generators, judge, embedder): where
// the key is found travels, never the key. The preset travels by name (FindAidanPreset).
using AidanSettings = v1::AidanSettings;

AidanSettings MakeAidanSettings(const SweepConfig& config);

// NoveltyBench protocol settings (the config's `noveltybench:` section), sent with every NoveltyBench
// lease: the message itself (proto/noveltygrid/v1/settings.proto). Model fields name models the worker
// builds like any other (in-process "sim:..." ids, or the endpoints it carries).
using NoveltySettings = v1::NoveltySettings;

// The config's settings (DefaultNoveltySettings() without a `noveltybench:` section) with the sweep's
// seed and the endpoints of the generators and helper models.
NoveltySettings MakeNoveltySettings(const SweepConfig& config);

// Hash of everything in the settings that changes what a NoveltyBench unit computes: every field
// (AddSettings, common/settings_hash.h), endpoints as AidanSettingsHash counts them.
uint64_t NoveltySettingsHash(const NoveltySettings& settings);

// Hash of everything in the settings that changes what a unit computes: every field but judge_retries
// (AddSettings, common/settings_hash.h). Of an endpoint only the provider's model name (when it differs
// from the model's name) and extra body fields count: where a model is served from does not change
// what it answers.
uint64_t AidanSettingsHash(const AidanSettings& settings);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_UNIT_SETTINGS_H_
