// The two C++ structs inside the settings messages (proto/noveltygrid/v1/settings.proto) <-> their
// messages, each converted whole in one place: ModelEndpoint (common/provider_config.h; the settings
// carry the endpoints of the models a benchmark calls, keyed by the model's name) and PromptTemplates
// (common/prompts.h; the AidanBench wording, whose methods fill the templates in).
#ifndef NOVELTYGRID_COMMON_SETTINGS_PROTO_H_
#define NOVELTYGRID_COMMON_SETTINGS_PROTO_H_

#include <map>
#include <string>

#include "common/prompts.h"
#include "common/provider_config.h"
#include "noveltygrid/v1/settings.pb.h"

namespace noveltygrid {

void ToProto(const ModelEndpoint& endpoint, v1::ModelEndpoint* out);
ModelEndpoint FromProto(const v1::ModelEndpoint& endpoint);

// The endpoints of a settings message by model name, as the worker's model registry takes them.
std::map<std::string, ModelEndpoint> EndpointsByName(
    const google::protobuf::RepeatedPtrField<v1::ModelEndpoint>& endpoints);

// Fills `out` with `endpoints` in name order.
void ToProto(const std::map<std::string, ModelEndpoint>& endpoints,
             google::protobuf::RepeatedPtrField<v1::ModelEndpoint>* out);

void ToProto(const PromptTemplates& templates, v1::PromptTemplates* out);
PromptTemplates FromProto(const v1::PromptTemplates& templates);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_SETTINGS_PROTO_H_
