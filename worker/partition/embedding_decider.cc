#include "worker/partition/embedding_decider.h"

#include <cmath>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"

namespace noveltygrid {

EmbeddingDecider::EmbeddingDecider(Embedder* embedder, double threshold)
    : EquivalenceDecider(kPartitionerEmbedding, "embed", embedder->id(), threshold), embedder_(embedder) {}

std::optional<EquivalenceScope> EmbeddingDecider::CacheScope(std::string_view /*prompt*/) const {
  // The same embedder asked for another size gives other vectors.
  return EquivalenceScope{kind(), absl::StrCat(cache_model(), ":", embedder_->dimensions()), ""};
}

absl::StatusOr<std::vector<double>> EmbeddingDecider::Cosines(const std::vector<TextPair>& pairs) {
  std::vector<double> cosines;
  cosines.reserve(pairs.size());
  for (const TextPair& pair : pairs) {
    const Embedding& a = held_.at(pair.first);
    const Embedding& b = held_.at(pair.second);
    // Vectors of different sizes are a broken embedder, not two different ideas.
    if (a.size() != b.size()) {
      return absl::InternalError(
          absl::StrCat("embedder ", embedder_->id(), " gave vectors of ", a.size(), " and ", b.size(), " dimensions"));
    }
    cosines.push_back(CosineSimilarity(a, b));
  }
  return cosines;
}

void EmbeddingDecider::Score(const std::string& /*prompt*/, std::vector<TextPair> pairs, DeciderCallback done) {
  std::vector<std::string> missing;
  DeciderReply held;
  {
    absl::MutexLock lock(&mu_);
    std::set<std::string> wanted;
    for (const TextPair& pair : pairs) {
      for (const std::string* text : {&pair.first, &pair.second}) {
        if (held_.count(*text) == 0 && wanted.insert(*text).second) missing.push_back(*text);
      }
    }
    if (missing.empty()) held.scores = Cosines(pairs);
  }
  if (missing.empty()) {
    std::move(done)(std::move(held));
    return;
  }
  const size_t expected = missing.size();
  std::vector<std::string> texts = missing;
  embedder_->Embed(std::move(texts), [this, expected, missing = std::move(missing), pairs = std::move(pairs),
                                      done = std::move(done)](absl::StatusOr<EmbedReply> reply) mutable {
    DeciderReply out;
    out.calls.requests = 1;
    if (!reply.ok()) {
      out.calls.errors = 1;
      out.scores = reply.status();
    } else {
      out.calls.prompt_tokens = reply->prompt_tokens;
      out.calls.retries = reply->retries;
      out.calls.hedges = reply->hedges;  // their tokens are in prompt_tokens
      if (reply->vectors.size() != expected) {
        out.calls.errors = 1;
        out.scores = absl::InternalError(
            absl::StrCat("the embedder returned ", reply->vectors.size(), " vectors for ", expected, " texts"));
      } else {
        absl::MutexLock lock(&mu_);
        for (size_t i = 0; i < expected; ++i) held_[missing[i]] = std::move(reply->vectors[i]);
        out.scores = Cosines(pairs);
      }
    }
    std::move(done)(std::move(out));
  });
}

}  // namespace noveltygrid
