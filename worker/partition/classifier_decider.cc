#include "worker/partition/classifier_decider.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/text.h"

namespace noveltygrid {

ClassifierDecider::ClassifierDecider(PairClassifier* classifier, double threshold)
    : EquivalenceDecider(kPartitionerClassifier, "classify", classifier->id(), threshold), classifier_(classifier) {}

std::optional<EquivalenceScope> ClassifierDecider::CacheScope(std::string_view /*prompt*/) const {
  return EquivalenceScope{kind(), cache_model(), ""};  // the classifier never sees the prompt
}

void ClassifierDecider::Score(const std::string& /*prompt*/, std::vector<TextPair> pairs, DeciderCallback done) {
  const size_t expected = pairs.size();
  for (TextPair& pair : pairs) {
    // TruncateWords keeps the text as written up to the end of its 128th word.
    pair.first = TruncateWords(pair.first, kClassifierMaxWords);
    pair.second = TruncateWords(pair.second, kClassifierMaxWords);
  }
  classifier_->Classify(
      std::move(pairs), [expected, done = std::move(done)](absl::StatusOr<ScoredPairs> reply) mutable {
        DeciderReply out;
        if (!reply.ok()) {
          out.calls.requests = 1;
          out.calls.errors = 1;
          out.scores = reply.status();
        } else if (reply->same_probability.size() != expected) {
          out.calls.requests = std::max(1, reply->call.requests);
          out.calls.retries = reply->call.retries;
          out.calls.hedges = reply->call.hedges;
          out.calls.errors = 1;
          out.scores = absl::InternalError(absl::StrCat("the classifier returned ", reply->same_probability.size(),
                                                        " probabilities for ", expected, " pairs"));
        } else {
          // In-process classifiers report no HTTP requests; the call still counts as one.
          out.calls.requests = std::max(1, reply->call.requests);
          out.calls.retries = reply->call.retries;
          out.calls.hedges = reply->call.hedges;
          out.scores = std::move(reply->same_probability);
        }
        std::move(done)(std::move(out));
      });
}

}  // namespace noveltygrid
