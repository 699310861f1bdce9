#include "worker/models/lexical_embedder.h"

#include <cmath>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/hashing.h"

namespace noveltygrid {

namespace {

constexpr int kMaxDimensions = 65536;

constexpr std::string_view kStopwords[] = {
    "a",     "an",    "the", "and",   "or",    "but",   "of",  "to",   "in",    "on",   "at",  "for",  "with", "by",
    "from",  "as",    "is",  "are",   "was",   "were",  "be",  "been", "being", "it",   "its", "this", "that", "these",
    "those", "so",    "can", "could", "would", "will",  "i",   "you",  "we",    "they", "he",  "she",  "them", "his",
    "her",   "their", "our", "your",  "my",    "me",    "us",  "do",   "does",  "did",  "not", "no",   "than", "then",
    "there", "here",  "if",  "into",  "about", "which", "who", "what", "how",   "why",
};

bool IsWordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

void AddFeature(uint64_t hash, double weight, std::vector<double>& acc) {
  const size_t bucket = hash % acc.size();
  acc[bucket] += (hash >> 63) ? -weight : weight;
}

}  // namespace

void ForEachLexicalWord(std::string_view text, absl::FunctionRef<void(std::string_view word)> visit) {
  std::string word;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !IsWordByte(static_cast<unsigned char>(text[i]))) ++i;
    if (i == text.size()) break;
    word.clear();
    while (i < text.size() && IsWordByte(static_cast<unsigned char>(text[i]))) {
      char c = text[i++];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      word.push_back(c);
    }
    visit(word);
  }
}

std::vector<std::string> LexicalWords(std::string_view text) {
  std::vector<std::string> words;
  ForEachLexicalWord(text, [&words](std::string_view word) { words.emplace_back(word); });
  return words;
}

bool IsLexicalStopword(std::string_view lowercase_word) {
  static const auto* const stopwords =
      new absl::flat_hash_set<std::string_view>(std::begin(kStopwords), std::end(kStopwords));
  return stopwords->contains(lowercase_word);
}

absl::StatusOr<std::unique_ptr<LexicalEmbedder>> LexicalEmbedder::Create(const std::string& id, Executor* executor) {
  if (executor == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("embedder '", id, "': no executor given"));
  }
  if (id == "lexical") return std::make_unique<LexicalEmbedder>(kDefaultDimensions, executor);
  int dims = 0;
  if (absl::StartsWith(id, "lexical-") && absl::SimpleAtoi(id.substr(8), &dims) && dims >= 1 &&
      dims <= kMaxDimensions && id.substr(8) == absl::StrCat(dims)) {
    return std::make_unique<LexicalEmbedder>(dims, executor);
  }
  return absl::InvalidArgumentError(absl::StrCat("embedder '", id, "': expected 'lexical' or 'lexical-D' with D in 1..",
                                                 kMaxDimensions, " (e.g. lexical-512)"));
}

LexicalEmbedder::LexicalEmbedder(int dimensions, Executor* executor)
    : dimensions_(dimensions),
      id_(dimensions == kDefaultDimensions ? "lexical" : absl::StrCat("lexical-", dimensions)),
      executor_(executor) {}

Embedding LexicalEmbedder::EmbedOne(std::string_view text) const {
  std::vector<double> acc(dimensions_, 0.0);
  std::string previous;  // the last word that was not a stopword
  bool has_previous = false;
  ForEachLexicalWord(text, [&](std::string_view word) {
    if (IsLexicalStopword(word)) return;
    AddFeature(StableHasher().Add("u").Add(word).Finish(), 1.0, acc);
    if (has_previous) AddFeature(StableHasher().Add("b").Add(previous).Add(word).Finish(), 0.5, acc);
    previous.assign(word);
    has_previous = true;
  });
  double norm2 = 0;
  for (double v : acc) norm2 += v * v;
  Embedding out(dimensions_, 0.0f);
  if (norm2 > 0) {
    const double inv = 1.0 / std::sqrt(norm2);
    for (int i = 0; i < dimensions_; ++i) out[i] = static_cast<float>(acc[i] * inv);
  }
  return out;
}

void LexicalEmbedder::Embed(std::vector<std::string> texts, EmbedCallback done) {
  EmbedReply reply;
  reply.vectors.reserve(texts.size());
  for (const std::string& text : texts) reply.vectors.push_back(EmbedOne(text));
  executor_->Schedule(
      [done = std::move(done), reply = std::move(reply)]() mutable { std::move(done)(std::move(reply)); });
}

}  // namespace noveltygrid
