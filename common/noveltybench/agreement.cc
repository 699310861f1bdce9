#include "common/noveltybench/agreement.h"

#include "absl/strings/str_cat.h"

namespace noveltygrid::noveltybench {

absl::Status PairAgreement::Add(const std::vector<int>& recorded, const std::vector<int>& fresh) {
  if (recorded.size() != fresh.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("partitions of ", recorded.size(), " and ", fresh.size(), " generations cannot be compared"));
  }
  for (size_t i = 0; i < recorded.size(); ++i) {
    for (size_t j = i + 1; j < recorded.size(); ++j) {
      const bool truth = recorded[i] == recorded[j];
      const bool claimed = fresh[i] == fresh[j];
      both_same_ += truth && claimed;
      new_only_same_ += claimed && !truth;
      recorded_only_same_ += truth && !claimed;
      ++pairs_;
    }
  }
  return absl::OkStatus();
}

double PairAgreement::precision() const {
  const int64_t claimed = both_same_ + new_only_same_;
  return claimed == 0 ? 1.0 : static_cast<double>(both_same_) / static_cast<double>(claimed);
}

double PairAgreement::recall() const {
  const int64_t truth = both_same_ + recorded_only_same_;
  return truth == 0 ? 1.0 : static_cast<double>(both_same_) / static_cast<double>(truth);
}

double PairAgreement::f1() const {
  const double p = precision();
  const double r = recall();
  return p + r == 0 ? 0.0 : 2 * p * r / (p + r);
}

}  // namespace noveltygrid::noveltybench
