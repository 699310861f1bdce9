// Conversions between the project's records and their noveltygrid.v1 messages, in one place, so the
// coordinator service and the worker client agree on every field.
#ifndef NOVELTYGRID_PROTO_WIRE_H_
#define NOVELTYGRID_PROTO_WIRE_H_

#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/call_cost.h"
#include "common/embedding.h"
#include "common/records.h"
#include "common/settings_proto.h"
#include "common/unit_settings.h"
#include "noveltygrid/v1/coordinator.pb.h"

namespace noveltygrid {

void ToProto(const UnitSpec& unit, v1::Unit* out);
UnitSpec FromProto(const v1::Unit& unit);

void ToProto(const NoveltyOutcome& outcome, v1::NoveltyOutcome* out);
NoveltyOutcome FromProto(const v1::NoveltyOutcome& outcome);

// The embedding is optional: step reports carry it (unless the worker's checkpoint store holds it:
// Step.embedding_in_store), completed results do not.
void ToProto(const StepRecord& answer, const Embedding* embedding, v1::Step* out);
StepRecord FromProto(const v1::Step& answer);
Embedding EmbeddingFromProto(const v1::Step& answer);

// The answer_num of a serialized v1::Step, without parsing it: its fields are walked to the end, so a
// step that would not parse gives nullopt; no field is copied. (A step with no answer_num is 0.)
std::optional<int> StepAnswerNum(std::string_view step);

void ToProto(const CallStats& calls, google::protobuf::RepeatedPtrField<v1::CallCounter>* out);
CallStats FromProto(const google::protobuf::RepeatedPtrField<v1::CallCounter>& calls);

void ToProto(const CallWaits& waits, v1::CallWaits* out);
CallWaits FromProto(const v1::CallWaits& waits);

// A finished unit's result as the worker commits it: steps (without embeddings), stop reason, error, cap,
// the benchmark's outcome where it has one. The unit itself travels as its id only; `result_unit`
// (the coordinator's own record of the unit) fills it back in.
void ToProto(const UnitResult& result, v1::CompleteRequest* out);
UnitResult ResultFromProto(const v1::CompleteRequest& request, UnitSpec result_unit);

// The entry of response.shared() for `benchmark` (a coordinator answering a request with shared_settings
// sends each benchmark's settings there once, not on each lease); null when there is none.
const v1::Lease* SharedSettingsFor(const v1::LeaseResponse& response, std::string_view benchmark);
// Gives every lease of `response` that carries no settings of its own those of its benchmark from
// shared(), then empties shared(). A lease whose benchmark has no entry is left as it is.
void TakeSharedSettings(v1::LeaseResponse* response);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_PROTO_WIRE_H_
