// The unit-id part of a benchmark's settings message (proto/noveltygrid/v1/settings.proto), taken by
// reflection so that a new setting is hashed without code here.
//
// Every field is added in field-number order: strings as strings, doubles as doubles, integers, enums
// and bools as uint64, nested messages field by field. Left out: fields marked
// [(noveltygrid.v1.not_in_unit_id) = true], and the endpoints (repeated ModelEndpoint), which are added
// last by AddEndpoints. Changing a field's number reorders the hash and so changes every unit id.
#ifndef NOVELTYGRID_COMMON_SETTINGS_HASH_H_
#define NOVELTYGRID_COMMON_SETTINGS_HASH_H_

#include <map>
#include <string>

#include "common/hashing.h"
#include "common/provider_config.h"
#include "google/protobuf/message.h"

namespace noveltygrid {

// Adds `settings` to `hasher` as described above, endpoints included.
void AddSettings(const google::protobuf::Message& settings, StableHasher& hasher);

// Of an endpoint only the provider's model name (when it differs from the model's name) and extra body
// fields count, and only when they differ from the plain default: where a model is served from does not
// change what it answers, and sweeps without such endpoints keep their unit ids.
void AddEndpoints(const std::map<std::string, ModelEndpoint>& endpoints, StableHasher& hasher);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_SETTINGS_HASH_H_
