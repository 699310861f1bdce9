// SimClassifierEquivalence: the synchronous rule the simulated classifier partitioner applies, for
// tests that compute the expected partition with GreedyPartition: equivalent iff
// SimSameIdeaProbability(first, candidate) > threshold.
#ifndef NOVELTYGRID_TESTS_WORKER_PARTITION_SIM_CLASSIFIER_EQUIVALENCE_H_
#define NOVELTYGRID_TESTS_WORKER_PARTITION_SIM_CLASSIFIER_EQUIVALENCE_H_

#include <string_view>

#include "common/noveltybench/partition.h"
#include "worker/sim/sim_scoring.h"

namespace noveltygrid::nbtest {

class SimClassifierEquivalence : public noveltybench::Equivalence {
 public:
  explicit SimClassifierEquivalence(double threshold) : threshold_(threshold) {}
  bool Equivalent(std::string_view, std::string_view first, std::string_view candidate) const override {
    return SimSameIdeaProbability(first, candidate) > threshold_;
  }

 private:
  const double threshold_;
};

}  // namespace noveltygrid::nbtest

#endif  // NOVELTYGRID_TESTS_WORKER_PARTITION_SIM_CLASSIFIER_EQUIVALENCE_H_
