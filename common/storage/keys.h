// Every key NoveltyGrid writes, in one place. All start with "ng:"; a Redis shared with other
// applications can be cleaned with SCAN MATCH ng:*.
//
//   ng:emb:EMBEDDER:DIMS:HASH128        float32 vector (little endian) -- shared embedding cache
//   ng:eq:KIND:MODEL:HASH128            raw equivalence score ("%.17g") of (context, first, candidate)
//                                       -- shared NoveltyBench equivalence cache
//   ng:eqg:KIND:MODEL:HASH128           class labels ("1,2,1") of (context, all generations in order)
//                                       -- the same cache for a whole-set partitioner (llm-groups)
//   ng:ckpt:UNIT_ID                     list of completed steps of a unit (AidanBench iterations,
//                                       NoveltyBench generations) -- loop checkpoints
//   ng:units                            hash unit id -> committed unit (result and call statistics,
//                                       JSON), shared by every sweep using this Redis
//   ng:sweep:NAME:leases                hash unit id -> the latest lease granted for it (coordinator/state/
//                                       lease_log.h): a restarted coordinator gives running units back
//                                       to their workers
//   ng:sweep:NAME:fingerprint, ng:sweep:NAME:results
//                                       written by versions before ng:units; moved into it on open
//   ng:limit:PROVIDER:rpm:MINUTE        requests admitted to PROVIDER in that minute (expires after 120 s)
//   ng:limit:PROVIDER:tpm:MINUTE        tokens charged to PROVIDER in that minute (expires after 120 s)
//   ng:limit:PROVIDER:inflight          sorted set of in-flight request slots, scored by expiry (ms)
#ifndef NOVELTYGRID_COMMON_STORAGE_KEYS_H_
#define NOVELTYGRID_COMMON_STORAGE_KEYS_H_

#include <string>

#include "absl/strings/str_cat.h"

namespace noveltygrid::keys {

inline std::string LimitPrefix(const std::string& provider) { return absl::StrCat("ng:limit:", provider, ":"); }
inline std::string Checkpoint(const std::string& unit_id) { return absl::StrCat("ng:ckpt:", unit_id); }
inline std::string Units() { return "ng:units"; }
inline std::string SweepLeases(const std::string& sweep) { return absl::StrCat("ng:sweep:", sweep, ":leases"); }
inline std::string LegacySweepFingerprint(const std::string& sweep) {
  return absl::StrCat("ng:sweep:", sweep, ":fingerprint");
}
inline std::string LegacySweepResults(const std::string& sweep) { return absl::StrCat("ng:sweep:", sweep, ":results"); }

}  // namespace noveltygrid::keys

#endif  // NOVELTYGRID_COMMON_STORAGE_KEYS_H_
