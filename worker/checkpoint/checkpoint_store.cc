#include "worker/checkpoint/checkpoint_store.h"

#include "common/storage/keys.h"
#include "proto/wire.h"

namespace noveltygrid {

void CheckpointStore::Append(const std::string& unit_id, const StepRecord& answer, const Embedding& embedding) {
  if (!guard_.Allow()) return;
  const std::string key = keys::Checkpoint(unit_id);
  absl::StatusOr<int64_t> length = store_->ListLength(key);
  guard_.Record(length.status());
  // Only the next step in order is appended: the list stays exactly steps 1..n.
  if (!length.ok() || *length != answer.answer_num - 1) return;
  v1::Step step;
  ToProto(answer, &embedding, &step);
  guard_.Record(store_->ListAppend(key, step.SerializeAsString()).status());
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
