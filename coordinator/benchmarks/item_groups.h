// Breakdowns by item metadata: AidanBench questions may carry `domain` / `subdomain`, NoveltyBench
// prompts `category` (common/dataset.h; carried as UnitSpec's fields of those names). A benchmark's
// cells are broken down by them only when some item of the sweep carries one, so a sweep without
// metadata writes what it always did; the items without one are grouped under kNoGroup.
#ifndef NOVELTYGRID_COORDINATOR_BENCHMARKS_ITEM_GROUPS_H_
#define NOVELTYGRID_COORDINATOR_BENCHMARKS_ITEM_GROUPS_H_

#include <string>

namespace noveltygrid {

// The group of the items without the metadata, among the named ones.
inline constexpr char kNoGroup[] = "(none)";

// The group an item's metadata `value` puts it in.
inline std::string GroupKey(const std::string& value) { return value.empty() ? kNoGroup : value; }

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COORDINATOR_BENCHMARKS_ITEM_GROUPS_H_
