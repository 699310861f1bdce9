// UnigramDecider: the reference's offline partitioner -- ROUGE-1 F of the two texts
// (common/noveltybench/unigram.h), equivalent when above the threshold (0.458 in the reference).
// Computed in process: Score delivers inline, and nothing is cached (a lookup would cost more than
// the computation). See equivalence_decider.h.
//
// Thread-safe: immutable.
#ifndef NOVELTYGRID_WORKER_PARTITION_UNIGRAM_DECIDER_H_
#define NOVELTYGRID_WORKER_PARTITION_UNIGRAM_DECIDER_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "worker/partition/equivalence_decider.h"

namespace noveltygrid {

class UnigramDecider : public EquivalenceDecider {
 public:
  explicit UnigramDecider(double threshold) : EquivalenceDecider(kPartitionerUnigram, "", "", threshold) {}

  std::optional<EquivalenceScope> CacheScope(std::string_view /*prompt*/) const override { return std::nullopt; }
  void Score(const std::string& prompt, std::vector<TextPair> pairs, DeciderCallback done) override;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_PARTITION_UNIGRAM_DECIDER_H_
