#include "worker/checkpoint/checkpoint_store.h"

#include "common/storage/keys.h"
#include "proto/wire.h"

namespace noveltygrid {

bool CheckpointStore::CatchUp(const std::string& unit_id, absl::Span<const StepRecord> steps,
                              absl::Span<const Embedding> embeddings) {
  // Embeddings are per step or absent; a mismatch is the caller's bug, and no checkpoint beats a wrong one.
  if (!embeddings.empty() && embeddings.size() != steps.size()) return false;
  // Only the steps numbered 1, 2, ... from the first: nothing from a gap on is stored.
  size_t in_order = 0;
  while (in_order < steps.size() && steps[in_order].answer_num == static_cast<int>(in_order) + 1) ++in_order;
  const bool whole = in_order == steps.size();
  steps = steps.first(in_order);
  if (!embeddings.empty()) embeddings = embeddings.first(in_order);
  if (steps.empty()) return whole;
  if (!guard_.Allow()) return false;
  const std::string key = keys::Checkpoint(unit_id);
  absl::StatusOr<int64_t> length = store_->ListLength(key);
  guard_.Record(length.status());
  if (!length.ok()) return false;
  if (static_cast<size_t>(*length) >= steps.size()) return whole;
  // One command, so the list never holds half of what was missing. Another writer appending in between
  // (the loop of an earlier lease of the unit, before it learned it had lost it) leaves a repeated
  // step, at which Load stops: a shorter checkpoint, but of one history -- rewriting the list here
  // could put that other loop's steps before this one's.
  const absl::Status appended = store_->ListAppendMany(key, Serialized(steps, embeddings, *length)).status();
  guard_.Record(appended);
  return appended.ok() && whole;
}

std::vector<std::string> CheckpointStore::Serialized(absl::Span<const StepRecord> steps,
                                                     absl::Span<const Embedding> embeddings, size_t from) {
  std::vector<std::string> serialized;
  serialized.reserve(steps.size() - from);
  for (size_t i = from; i < steps.size(); ++i) {
    v1::Step step;
    ToProto(steps[i], embeddings.empty() ? nullptr : &embeddings[i], &step);  // null: no embedding
    serialized.push_back(step.SerializeAsString());
  }
  return serialized;
}

UnitCheckpoint CheckpointStore::Load(const std::string& unit_id) {
  UnitCheckpoint checkpoint;
  if (!guard_.Allow()) return checkpoint;
  absl::StatusOr<std::vector<std::string>> steps = store_->ListRange(keys::Checkpoint(unit_id), 0, -1);
  guard_.Record(steps.status());
  if (!steps.ok()) return checkpoint;
  for (const std::string& bytes : *steps) {
    v1::Step step;
    if (!step.ParseFromString(bytes)) break;
    if (step.answer_num() != static_cast<int>(checkpoint.answers.size()) + 1) break;
    checkpoint.answers.push_back(FromProto(step));
    checkpoint.embeddings.push_back(EmbeddingFromProto(step));
  }
  return checkpoint;
}

}  // namespace noveltygrid
