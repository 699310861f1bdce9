// EmbeddingDecider: two texts are the same idea when the cosine of their embeddings exceeds the
// threshold. Each distinct text is embedded once per decider (a class's first member is compared with
// every later generation), so make one decider per unit; a batch whose texts are all held is decided
// without a call, inline. See equivalence_decider.h.
//
// Thread-safe: the held embeddings are guarded by mu_.
#ifndef NOVELTYGRID_WORKER_PARTITION_EMBEDDING_DECIDER_H_
#define NOVELTYGRID_WORKER_PARTITION_EMBEDDING_DECIDER_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "worker/models/model.h"
#include "worker/partition/equivalence_decider.h"

namespace noveltygrid {

class EmbeddingDecider : public EquivalenceDecider {
 public:
  // `embedder` is not owned and must outlive the decider.
  EmbeddingDecider(Embedder* embedder, double threshold);

  std::optional<EquivalenceScope> CacheScope(std::string_view prompt) const override;
  void Score(const std::string& prompt, std::vector<TextPair> pairs, DeciderCallback done) override;

 private:
  // The cosine per pair from held embeddings (all must be held).
  // InternalError when two vectors differ in size.
  absl::StatusOr<std::vector<double>> Cosines(const std::vector<TextPair>& pairs) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Embedder* const embedder_;
  absl::Mutex mu_;
  std::map<std::string, Embedding> held_ ABSL_GUARDED_BY(mu_);  // by text
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_PARTITION_EMBEDDING_DECIDER_H_
