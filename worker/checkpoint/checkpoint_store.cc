#include "worker/checkpoint/checkpoint_store.h"

#include "common/storage/keys.h"
#include "proto/wire.h"

namespace noveltygrid {

bool CheckpointStore::CatchUp(const std::string& unit_id, absl::Span<const StepRecord> steps,
                              absl::Span<const Embedding> embeddings, size_t* own) {
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
  // An empty list holds nothing of another history: this loop's steps go in from the first. A list of
  // another length than what this loop knows as its own holds someone else's entries: left alone.
  if (*length == 0) *own = 0;
  if (static_cast<size_t>(*length) != *own) return false;
  if (*own >= steps.size()) return whole;
  // One command, so the list never holds half of what was missing. Another writer appending in between
  // (the loop of an earlier lease of the unit, before it learned it had lost it) shows in the length
  // it leaves: the list is then that other loop's from there on, and this one stops writing it.
  absl::StatusOr<int64_t> appended = store_->ListAppendMany(key, Serialized(steps, embeddings, *own));
  guard_.Record(appended.status());
  if (!appended.ok() || static_cast<size_t>(*appended) != steps.size()) return false;
  *own = steps.size();
  return whole;
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
