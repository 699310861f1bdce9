// Reading NoveltyBench's part of a results folder back, for `noveltygrid report DIR`: samples.jsonl
// lines carry every unit's fields; the settings (patience, partitioner, ...) come from the old
// summary's "noveltybench" cells, else the defaults (noted). Only a sweep's samples.jsonl (with unit
// ids) is read: import and repartition folders are rebuilt by running that command again.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTY_REBUILD_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTY_REBUILD_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/benchmarks/registry.h"

namespace noveltygrid {

// samples.jsonl re-read, re-scored with the recorded settings and rewritten when its scores or order
// change.
absl::StatusOr<std::unique_ptr<BenchmarkResults>> RebuildNoveltyResults(const RebuildRequest& request,
                                                                        std::vector<std::string>& notes);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_NOVELTYBENCH_NOVELTY_REBUILD_H_
