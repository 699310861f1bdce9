// PartitionAsync: the NoveltyBench greedy partition (GreedyPartition's rule, common/noveltybench/
// partition.h) driven over an asynchronous EquivalenceDecider, with the EquivalenceCache in front.
//
// Generations are placed in order. For generation i the existing classes are considered in class
// order, each by its FIRST member: the short-text rule decides short pairs; the cache answers the
// pairs it holds (counted as cache_hits under the decider's stats key); the pairs still open, up to
// the first class already known to be equivalent, go to the decider in ONE batch, and their scores are
// written to the cache. The first equivalent class wins, else i opens a new class. The result is
// GreedyPartition's with the same decisions; the decider sees at most one batch per generation.
//
//   PartitionAsync(prompt, generations, decider, cache, [](PartitionOutcome outcome) { ... });
//
// A whole-set decider (classes_at_once: llm-groups) is asked once per prompt instead, through Group,
// unless the cache holds its classes for these generations or the short-text rule decides every pair;
// the partition is GreedyPartition's rule over its classes, the short-text rule first.
//
// One batch is in flight at a time, so the run needs no lock: each reply continues it on the thread
// that delivered it.
#ifndef NOVELTYGRID_WORKER_PARTITION_ASYNC_PARTITION_H_
#define NOVELTYGRID_WORKER_PARTITION_ASYNC_PARTITION_H_

#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "common/records.h"
#include "worker/cache/equivalence_cache.h"
#include "worker/partition/equivalence_decider.h"

namespace noveltygrid {

struct PartitionOutcome {
  absl::StatusOr<std::vector<int>> partition;  // canonical (0, 1, ... in order); the decider's error otherwise
  CallStats calls;                             // the decider's calls and the cache hits, by stats key
};
using PartitionCallback = absl::AnyInvocable<void(PartitionOutcome) &&>;

// `decider` and `cache` (optional) are not owned and must outlive the run. `done` runs once: on the
// thread of the decider's last reply, or inline before PartitionAsync returns when no model call was
// needed.
void PartitionAsync(std::string prompt, std::vector<std::string> generations, EquivalenceDecider* decider,
                    EquivalenceCache* cache, PartitionCallback done);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_PARTITION_ASYNC_PARTITION_H_
