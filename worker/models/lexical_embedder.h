// LexicalEmbedder: a hashed bag-of-words embedder. It is LEXICAL, not semantic: two texts are close
// when they use the same words (and word pairs), not when they mean the same thing. "The car is fast"
// and "the automobile is quick" are far apart here and close for a neural embedder. It exists so the
// simulated family, tests and load tests run without network or model weights; never read its
// novelty numbers as if they came from text-embedding-3-large.
//
// The vector of a text: lowercase ASCII letters; split on every ASCII byte that is not a letter or a
// digit (bytes >= 0x80 are word characters, so UTF-8 words stay whole); drop a small stopword list;
// each remaining word (weight 1) and each pair of consecutive remaining words (weight 0.5) is hashed
// with StableHash into one of D buckets with a hash-derived sign; the sum is L2-normalised (a text
// with no words gives the zero vector). Ids: "lexical" (D = 256) or "lexical-D" (D in 1..65536).
//
// Deterministic across machines. Thread-safe: immutable after construction. Embed computes on the
// caller's thread and delivers the reply through the executor, which must outlive pending calls.
#ifndef NOVELTYGRID_WORKER_MODELS_LEXICAL_EMBEDDER_H_
#define NOVELTYGRID_WORKER_MODELS_LEXICAL_EMBEDDER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "common/executor.h"
#include "worker/models/model.h"

namespace noveltygrid {

// The words of `text` as the lexical embedder sees them, lowercased, stopwords kept.
std::vector<std::string> LexicalWords(std::string_view text);
// The same words, one at a time and without a vector of copies: `visit` gets each (valid during the call).
void ForEachLexicalWord(std::string_view text, absl::FunctionRef<void(std::string_view word)> visit);
// True for the embedder's stopwords (lowercase input).
bool IsLexicalStopword(std::string_view lowercase_word);

class LexicalEmbedder : public Embedder {
 public:
  static constexpr int kDefaultDimensions = 256;

  // Parses "lexical" or "lexical-D"; InvalidArgument for anything else.
  static absl::StatusOr<std::unique_ptr<LexicalEmbedder>> Create(const std::string& id, Executor* executor);
  LexicalEmbedder(int dimensions, Executor* executor);

  const std::string& id() const override { return id_; }
  int dimensions() const override { return dimensions_; }
  void Embed(std::vector<std::string> texts, EmbedCallback done) override;

  // The vector Embed returns for one text.
  Embedding EmbedOne(std::string_view text) const;

 private:
  const int dimensions_;
  const std::string id_;
  Executor* const executor_;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_MODELS_LEXICAL_EMBEDDER_H_
