// The offline unigram partitioner of the reference: two texts are the same idea when their ROUGE-1 F
// measure is strictly greater than a threshold (0.458 in the reference).
//
// ROUGE-1 as rouge_score's RougeScorer(["rouge1"]) computes it (the reference's default: no stemmer):
// tokens are the text lowercased, every run of characters outside [a-z0-9] replaced by a space, split
// on whitespace -- so punctuation separates words and non-ASCII letters are dropped. Overlap counts
// each unigram min(count in a, count in b) times; precision = overlap / |b|, recall = overlap / |a|
// (an empty side divides by 1); F = 2PR / (P + R), 0 when both are 0. F is symmetric in a and b.
//
// Thread-safe: immutable.
#ifndef NOVELTYGRID_COMMON_NOVELTYBENCH_UNIGRAM_H_
#define NOVELTYGRID_COMMON_NOVELTYBENCH_UNIGRAM_H_

#include <string>
#include <string_view>
#include <vector>

#include "common/noveltybench/partition.h"

namespace noveltygrid::noveltybench {

inline constexpr double kDefaultUnigramThreshold = 0.458;

// rouge_score's default tokenizer (use_stemmer=False).
std::vector<std::string> RougeTokens(std::string_view text);

// ROUGE-1 F measure of two texts.
double Rouge1F(std::string_view a, std::string_view b);

class UnigramEquivalence : public Equivalence {
 public:
  explicit UnigramEquivalence(double threshold = kDefaultUnigramThreshold) : threshold_(threshold) {}

  // Rouge1F(first, candidate) > threshold.
  bool Equivalent(std::string_view prompt, std::string_view first, std::string_view candidate) const override;

  double threshold() const { return threshold_; }

 private:
  const double threshold_;
};

}  // namespace noveltygrid::noveltybench

#endif  // NOVELTYGRID_COMMON_NOVELTYBENCH_UNIGRAM_H_
