#include "common/settings_hash.h"

#include <algorithm>
#include <vector>

#include "common/settings_proto.h"
#include "noveltygrid/v1/settings.pb.h"

namespace noveltygrid {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

bool IsEndpoints(const FieldDescriptor& field) {
  return field.is_repeated() && field.message_type() == v1::ModelEndpoint::descriptor();
}

// One value of `field` (element `index` when repeated).
void AddValue(const Message& m, const FieldDescriptor& field, int index, StableHasher& hasher) {
  const Reflection& r = *m.GetReflection();
  const bool rep = field.is_repeated();
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING:
      hasher.Add(rep ? r.GetRepeatedString(m, &field, index) : r.GetString(m, &field));
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      hasher.Add(rep ? r.GetRepeatedDouble(m, &field, index) : r.GetDouble(m, &field));
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      hasher.Add(static_cast<double>(rep ? r.GetRepeatedFloat(m, &field, index) : r.GetFloat(m, &field)));
      break;
    case FieldDescriptor::CPPTYPE_INT32:
      hasher.Add(static_cast<uint64_t>(rep ? r.GetRepeatedInt32(m, &field, index) : r.GetInt32(m, &field)));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      hasher.Add(static_cast<uint64_t>(rep ? r.GetRepeatedInt64(m, &field, index) : r.GetInt64(m, &field)));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      hasher.Add(static_cast<uint64_t>(rep ? r.GetRepeatedUInt32(m, &field, index) : r.GetUInt32(m, &field)));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      hasher.Add(rep ? r.GetRepeatedUInt64(m, &field, index) : r.GetUInt64(m, &field));
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      hasher.Add(static_cast<uint64_t>(rep ? r.GetRepeatedBool(m, &field, index) : r.GetBool(m, &field)));
      break;
    case FieldDescriptor::CPPTYPE_ENUM:
      hasher.Add(static_cast<uint64_t>(rep ? r.GetRepeatedEnumValue(m, &field, index) : r.GetEnumValue(m, &field)));
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      AddSettings(rep ? r.GetRepeatedMessage(m, &field, index) : r.GetMessage(m, &field), hasher);
      break;
  }
}

}  // namespace

void AddSettings(const Message& settings, StableHasher& hasher) {
  const google::protobuf::Descriptor& d = *settings.GetDescriptor();
  std::vector<const FieldDescriptor*> fields;
  for (int i = 0; i < d.field_count(); ++i) fields.push_back(d.field(i));
  std::sort(fields.begin(), fields.end(),
            [](const FieldDescriptor* a, const FieldDescriptor* b) { return a->number() < b->number(); });
  const Reflection& r = *settings.GetReflection();
  std::map<std::string, ModelEndpoint> endpoints;
  for (const FieldDescriptor* field : fields) {
    if (field->options().GetExtension(v1::not_in_unit_id)) continue;
    if (field->options().GetExtension(v1::in_unit_id_when_set) && !field->is_repeated() &&
        !r.HasField(settings, field)) {
      continue;
    }
    if (IsEndpoints(*field)) {
      for (int i = 0; i < r.FieldSize(settings, field); ++i) {
        const auto& e = static_cast<const v1::ModelEndpoint&>(r.GetRepeatedMessage(settings, field, i));
        endpoints[e.name()] = FromProto(e);
      }
      continue;
    }
    if (!field->is_repeated()) {
      AddValue(settings, *field, 0, hasher);
      continue;
    }
    for (int i = 0; i < r.FieldSize(settings, field); ++i) AddValue(settings, *field, i, hasher);
  }
  AddEndpoints(endpoints, hasher);
}

void AddEndpoints(const std::map<std::string, ModelEndpoint>& endpoints, StableHasher& hasher) {
  for (const auto& [name, endpoint] : endpoints) {
    if (!EndpointChangesAnswers(name, endpoint)) continue;
    hasher.Add(name)
        .Add(endpoint.remote_model)
        .Add(endpoint.extra_body_json)
        .Add(static_cast<uint64_t>(endpoint.dimensions));
    // Added later: hashed only when set, so the ids of earlier sweeps stay what they were.
    if (!endpoint.reasoning_effort.empty()) hasher.Add("reasoning_effort").Add(endpoint.reasoning_effort);
    if (endpoint.omit_temperature) hasher.Add("omit_temperature");
  }
}

}  // namespace noveltygrid
