#include "worker/checkpoint/checkpoint_store.h"

#include "common/storage/keys.h"
#include "proto/wire.h"

namespace noveltygrid {

void CheckpointStore::CatchUp(const std::string& unit_id, absl::Span<const StepRecord> steps,
                              absl::Span<const Embedding> embeddings) {
  if (steps.empty() || !guard_.Allow()) return;
  const std::string key = keys::Checkpoint(unit_id);
  absl::StatusOr<int64_t> length = store_->ListLength(key);
  guard_.Record(length.status());
  if (!length.ok()) return;
  // The list stays exactly steps 1..m: step i goes at index i - 1, and only after all before it.
  for (size_t i = static_cast<size_t>(*length); i < steps.size(); ++i) {
    if (steps[i].answer_num != static_cast<int>(i) + 1) return;
    v1::Step step;
    ToProto(steps[i], i < embeddings.size() ? &embeddings[i] : nullptr, &step);  // null: no embedding
    absl::Status appended = store_->ListAppend(key, step.SerializeAsString()).status();
    guard_.Record(appended);
    if (!appended.ok()) return;
  }
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
