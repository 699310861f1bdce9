// ModelEndpoint (common/provider_config.h) <-> its noveltygrid.v1 message, in one place: the settings
// messages carry the endpoints of the models a benchmark calls, keyed by the model's name.
#ifndef NOVELTYGRID_COMMON_ENDPOINT_PROTO_H_
#define NOVELTYGRID_COMMON_ENDPOINT_PROTO_H_

#include <map>
#include <string>

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

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_ENDPOINT_PROTO_H_
