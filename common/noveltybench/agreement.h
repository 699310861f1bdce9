// How far a new partition agrees with a recorded one, over same-class pairs: every pair i < j of one
// row's generations is "same" or "different" under each partition; the recorded partition is the
// truth. Counts are summed over rows (micro-average) before precision, recall and F1 are taken.
//
//   PairAgreement agreement;
//   for (...) agreement.Add(row.partition, fresh);
//   agreement.f1();
//
// Undefined ratios follow "nothing claimed, nothing wrong": precision is 1 when the new partition puts
// no pair together, recall is 1 when the recorded one has none; F1 is 0 when both ratios are 0.
// Not thread-safe (a plain accumulator).
#ifndef NOVELTYGRID_COMMON_NOVELTYBENCH_AGREEMENT_H_
#define NOVELTYGRID_COMMON_NOVELTYBENCH_AGREEMENT_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"

namespace noveltygrid::noveltybench {

class PairAgreement {
 public:
  // InvalidArgument when the partitions differ in length.
  absl::Status Add(const std::vector<int>& recorded, const std::vector<int>& fresh);

  int64_t both_same() const { return both_same_; }                    // true positives
  int64_t new_only_same() const { return new_only_same_; }            // false positives
  int64_t recorded_only_same() const { return recorded_only_same_; }  // false negatives
  int64_t pairs() const { return pairs_; }

  double precision() const;
  double recall() const;
  double f1() const;

 private:
  int64_t both_same_ = 0;
  int64_t new_only_same_ = 0;
  int64_t recorded_only_same_ = 0;
  int64_t pairs_ = 0;
};

}  // namespace noveltygrid::noveltybench

#endif  // NOVELTYGRID_COMMON_NOVELTYBENCH_AGREEMENT_H_
