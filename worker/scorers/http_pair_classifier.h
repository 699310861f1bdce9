// HttpPairClassifier: a PairClassifier served over HTTP in the shape of text-embeddings-inference's
// pair classification (and serve-sim's simulated classifier):
//
//   POST base_url + path   {"inputs": [[a1, b1], [a2, b2], ...], "truncate": true}
//   reply                  [[{"label": "LABEL_0", "score": s0}, {"label": "LABEL_1", "score": s1}], ...]
//
// one entry per pair, in input order; the labels of an entry may come in any order (TEI sorts them by
// score), so the "same idea" probability is read by label name (`same_label`, LABEL_1 by default).
// Larger calls are split into requests of at most `max_batch` pairs and reassembled in order.
//
// Replies are checked strictly: an entry count that differs from the pair count, a missing or
// repeated label, a score that is not a number in [0, 1] -- each fails the call with InvalidArgument
// naming the endpoint; nothing is defaulted.
//
// The reply is a top-level JSON array, so the ProviderChannel must deliver arrays as well as objects.
//
// Thread-safe (immutable after Create); callbacks run on the executor. The channel and the executor
// must outlive the classifier and every call in flight.
#ifndef NOVELTYGRID_WORKER_SCORERS_HTTP_PAIR_CLASSIFIER_H_
#define NOVELTYGRID_WORKER_SCORERS_HTTP_PAIR_CLASSIFIER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/executor.h"
#include "worker/http/provider_channel.h"
#include "worker/scorers/batched_post.h"
#include "worker/scorers/scorers.h"

namespace noveltygrid {

struct HttpPairClassifierOptions {
  std::string id;                      // as in results, e.g. "tei:deberta-v3-large-generation-similarity"
  std::string path = "/predict";       // appended to the channel's base_url
  std::string same_label = "LABEL_1";  // the label whose score is P(same idea)
  int max_batch = 32;                  // pairs per request, >= 1
  // TEI: cut a pair longer than the model's window instead of failing the request with 413. (TEI
  // cuts the joined pair; the reference cuts each text to 128 tokens, which is the caller's job.)
  bool truncate = true;
};

class HttpPairClassifier : public HttpBatchScorer<PairClassifier, HttpPairClassifierOptions> {
 public:
  // InvalidArgument for an empty id or label, a path without a leading '/', max_batch < 1, or a null
  // channel or executor.
  static absl::StatusOr<std::unique_ptr<HttpPairClassifier>> Create(const HttpPairClassifierOptions& options,
                                                                    ProviderChannel* channel, Executor* executor);

  void Classify(std::vector<TextPair> pairs, ClassifyCallback done) override;

 private:
  using HttpBatchScorer::HttpBatchScorer;
};

// The P(same) of each entry of a /predict reply for `expected` pairs (exposed for tests).
absl::StatusOr<std::vector<double>> ParsePairClassifierReply(const Json& reply, size_t expected,
                                                             const std::string& same_label);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_SCORERS_HTTP_PAIR_CLASSIFIER_H_
