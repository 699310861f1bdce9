#include "worker/sim/sim_idea_space.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/hashing.h"
#include "common/text.h"
#include "worker/models/lexical_embedder.h"
#include "worker/sim/sim_vocabulary.h"

namespace noveltygrid::sim {

namespace {

// Words that frame a question rather than name its topic.
constexpr std::string_view kQuestionWords[] = {
    "what",      "why",      "how",         "which",    "who",    "whom",      "when",     "where",
    "provide",   "explain",  "explanation", "describe", "give",   "list",      "name",     "tell",
    "write",     "make",     "use",         "might",    "could",  "should",    "would",    "best",
    "way",       "ways",     "some",        "possible", "please", "answer",    "question", "one",
    "following", "think",    "new",         "good",     "can",    "you",       "your",     "me",
    "two",       "three",    "four",        "five",     "six",    "seven",     "eight",    "nine",
    "ten",       "sentence", "sentences",   "word",     "words",  "paragraph", "short",    "brief",
    "random",    "generate", "different",   "another",  "come",   "favorite",  "create",   "pick",
};

constexpr int kMaxTopics = 6;

// {V} verb, {A} adjective, {N} object, {M} means, {P} purpose verb, {G} goal, {T} topic word;
// {aA} / {aM}: the word with its indefinite article; a trailing ^ capitalises the expansion.
constexpr std::string_view kSentenceTemplates[] = {
    "One option is to {V} the {A} {N} with {aM}, so that the {G} can {P} the {T}.",
    "You could {V} {aA} {N} using the {M}; that way the {G} will {P} the {T}.",
    "{V^} the {A} {N} by means of {aM}, which lets the {G} {P} the {T}.",
    "A good approach is to {V} the {N} while keeping it {A}, then use {aM} so the {G} can {P} the {T}.",
    "The idea is to {V} {aA} {N} and pair it with {aM}, helping the {G} {P} the {T}.",
    "I would {V} the {A} {N} through {aM}, so that the {G} is able to {P} the {T}.",
    "Consider how you might {V} the {A} {N} with the help of {aM}: the {G} could then {P} the {T}.",
    "Simply {V} the {A} {N}, add {aM}, and let the {G} {P} the {T}.",
};

constexpr std::string_view kStoryTemplates[] = {
    "{aA^} {N} wanted to {V} {aM}. In the end, the {G} learned to {P} the {T}.",
    "There once was {aA} {N} that tried to {V} {aM}, and soon the {G} began to {P} the {T}.",
    "Picture {aA} {N} ready to {V} {aM}; before long the {G} would {P} the {T}.",
    "Every morning {aA} {N} would {V} {aM}, until one day the {G} came to {P} the {T}.",
};

constexpr std::string_view kShortTemplates[] = {"{A^} {N}.", "{aA^} {N}.", "The {A} {N}."};

constexpr std::string_view kJunkLetters = "bcdfghjklmnpqrstvwxz";

std::span<const std::string_view> Templates(AnswerStyle style) {
  switch (style) {
    case AnswerStyle::kSentence:
      return kSentenceTemplates;
    case AnswerStyle::kStory:
      return kStoryTemplates;
    case AnswerStyle::kShort:
      return kShortTemplates;
  }
  return kSentenceTemplates;
}

bool IsWordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

std::string Lowercase(std::string_view word) {
  std::string out(word);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool StartsWithVowel(std::string_view word) {
  if (word.empty()) return false;
  char c = word[0];
  if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}

void AppendWithArticle(std::string_view word, std::string& out) {
  out += StartsWithVowel(word) ? "an " : "a ";
  out += word;
}

// A pronounceable-looking non-word made of consonants ("brzk"), which no English judge accepts.
std::string JunkToken(SimRng& rng) {
  std::string token;
  const int length = 3 + static_cast<int>(rng.Below(3));
  for (int i = 0; i < length; ++i) token.push_back(kJunkLetters[rng.Below(kJunkLetters.size())]);
  if (rng.Chance(0.3)) token.push_back(static_cast<char>('0' + rng.Below(10)));
  return token;
}

template <typename T>
void Shuffle(std::vector<T>& items, SimRng& rng) {
  for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[rng.Below(i)]);
}

int DistinctVocabularyIds(std::string_view text, std::vector<int>& ids) {
  ids.clear();
  ForEachLexicalWord(text, [&ids](std::string_view word) {
    const int id = VocabularyId(word);
    if (id >= 0 && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  });
  return static_cast<int>(ids.size());
}

}  // namespace

std::vector<std::string> TopicWords(std::string_view question) {
  static const auto* const question_words =
      new absl::flat_hash_set<std::string_view>(std::begin(kQuestionWords), std::end(kQuestionWords));
  std::vector<std::string> topics;
  std::vector<std::string> seen;
  size_t i = 0;
  while (i < question.size() && static_cast<int>(topics.size()) < kMaxTopics) {
    while (i < question.size() && !IsWordByte(static_cast<unsigned char>(question[i]))) ++i;
    size_t start = i;
    while (i < question.size() && IsWordByte(static_cast<unsigned char>(question[i]))) ++i;
    if (start == i) break;
    std::string_view word = question.substr(start, i - start);
    std::string lower = Lowercase(word);
    if (lower.size() < 3 || IsFunctionWord(lower) || IsLexicalStopword(lower) || question_words->contains(lower) ||
        std::all_of(lower.begin(), lower.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        std::find(seen.begin(), seen.end(), lower) != seen.end()) {
      continue;
    }
    seen.push_back(lower);
    topics.emplace_back(word);
  }
  return topics;
}

std::shared_ptr<const IdeaSpace> IdeaSpaceCache::Get(std::string_view question, std::string_view personality,
                                                     int size) {
  std::string key(personality);
  key.append("\n").append(std::to_string(size)).append("\n").append(StripWhitespace(question));
  {
    absl::MutexLock lock(&mu_);
    if (auto it = spaces_.find(key); it != spaces_.end()) return it->second;
  }
  // Made outside the lock: two threads asking for a new space at once both make it (the same one).
  auto space = std::make_shared<const IdeaSpace>(question, personality, size);
  absl::MutexLock lock(&mu_);
  if (spaces_.size() >= kCapacity) spaces_.clear();
  return spaces_.try_emplace(std::move(key), std::move(space)).first->second;
}

IdeaSpace::IdeaSpace(std::string_view question, std::string_view personality, int size) {
  question = StripWhitespace(question);
  size = std::clamp(size, 1, kPoolSize);
  topics_ = TopicWords(question);
  if (topics_.empty()) {
    topics_.emplace_back(Nouns()[StableHasher().Add("sim-topic").Add(question).Finish() % Nouns().size()]);
  }

  // The pool: kPoolSize ideas split evenly across the topic words, idea j of topic word w seeded by
  // (w, j) alone -- so paraphrases of a question, which share most topic words, share most ideas.
  // The personality ranks the whole pool by a hash of (personality, w, j) and keeps the top `size`.
  // Ideas about familiar words (vocabulary and common nouns: "dog", "war") rank higher than ideas
  // about framing words ("involving", "featuring"), which paraphrases do not share.
  struct Candidate {
    double salience;
    int topic;
    int index;
  };
  const int topic_count = static_cast<int>(topics_.size());
  const int per_topic = (kPoolSize + topic_count - 1) / topic_count;
  std::vector<uint64_t> idea_seeds(topic_count);
  std::vector<Candidate> pool;
  pool.reserve(static_cast<size_t>(per_topic) * topic_count);
  for (int k = 0; k < topic_count; ++k) {
    const std::string key = Lowercase(topics_[k]);
    idea_seeds[k] = StableHasher().Add("sim-idea").Add(key).Finish();
    const uint64_t salience_seed = StableHasher().Add("sim-salience").Add(personality).Add(key).Finish();
    const double weight = VocabularyId(key) >= 0 || IsCommonWord(key) ? 1.0 : 4.0;
    for (int j = 0; j < per_topic; ++j) {
      SimRng rng(salience_seed ^ Mix64(static_cast<uint64_t>(j)));
      pool.push_back({weight * rng.Uniform(), k, j});
    }
  }
  size = std::min(size, static_cast<int>(pool.size()));
  std::partial_sort(pool.begin(), pool.begin() + size, pool.end(), [](const Candidate& a, const Candidate& b) {
    if (a.salience != b.salience) return a.salience < b.salience;
    return a.topic != b.topic ? a.topic < b.topic : a.index < b.index;
  });

  const uint64_t nv = Verbs().size(), na = Adjectives().size(), nn = Nouns().size();
  ideas_.resize(size);
  for (int rank = 0; rank < size; ++rank) {
    const Candidate& c = pool[rank];
    SimRng rng(idea_seeds[c.topic] ^ Mix64(static_cast<uint64_t>(c.index)));
    Idea& idea = ideas_[rank];
    const int verb = static_cast<int>(rng.Below(nv));
    const int purpose = static_cast<int>((verb + 1 + rng.Below(nv - 1)) % nv);
    const int object = static_cast<int>(rng.Below(nn));
    const int means = static_cast<int>((object + 1 + rng.Below(nn - 1)) % nn);
    int goal = static_cast<int>(rng.Below(nn));
    while (goal == object || goal == means) goal = static_cast<int>((goal + 1) % nn);
    const int adjective = static_cast<int>(rng.Below(na));
    idea.words = {VerbId(verb), AdjectiveId(adjective), NounId(object), NounId(means), VerbId(purpose), NounId(goal)};
    idea.topic = c.topic;
  }

  posting_start_.assign(VocabularySize() + 1, 0);
  for (const Idea& idea : ideas_) {
    for (int w : idea.words) ++posting_start_[w + 1];
  }
  for (int w = 0; w < VocabularySize(); ++w) posting_start_[w + 1] += posting_start_[w];
  postings_.resize(posting_start_.back());
  std::vector<int> fill(posting_start_.begin(), posting_start_.end() - 1);
  for (int rank = 0; rank < size; ++rank) {
    // An idea never holds one word twice (distinct verbs, distinct nouns), so no rank repeats here.
    for (int w : ideas_[rank].words) postings_[fill[w]++] = rank;
  }
}

int IdeaSpace::Recognize(std::string_view text) const {
  const absl::string_view key(text.data(), text.size());  // Debian's absl::string_view is its own type
  {
    absl::MutexLock lock(&memo_mu_);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  }
  const int rank = RecognizeUncached(text);
  const size_t charge = text.size() + kMemoEntryBytes;
  if (charge > kMemoBytes) return rank;  // would only empty the memo
  absl::MutexLock lock(&memo_mu_);
  if (memo_bytes_ + charge > kMemoBytes) {
    memo_.clear();
    memo_bytes_ = 0;
  }
  if (memo_.emplace(key, rank).second) memo_bytes_ += charge;
  return rank;
}

int IdeaSpace::RecognizeUncached(std::string_view text) const {
  std::vector<int> ids;
  const int distinct = DistinctVocabularyIds(text, ids);
  const int threshold = std::clamp(distinct, 2, 4);
  if (distinct < threshold) return -1;
  std::vector<unsigned char> counts(ideas_.size(), 0);
  int best = -1, best_count = 0;
  for (int w : ids) {
    for (int p = posting_start_[w]; p < posting_start_[w + 1]; ++p) {
      const int rank = postings_[p];
      const int count = ++counts[rank];
      if (count > best_count || (count == best_count && rank < best)) {
        best = rank;
        best_count = count;
      }
    }
  }
  return best_count >= threshold ? best : -1;
}

int IdeaSpace::NumTemplates(AnswerStyle style) { return static_cast<int>(Templates(style).size()); }

std::string IdeaSpace::Render(int rank, AnswerStyle style, int template_index) const {
  const Idea& idea = ideas_[rank];
  std::span<const std::string_view> templates = Templates(style);
  std::string_view tmpl = templates[static_cast<size_t>(template_index) % templates.size()];
  std::string out;
  out.reserve(tmpl.size() + 64);
  size_t i = 0;
  while (i < tmpl.size()) {
    if (tmpl[i] != '{') {
      out.push_back(tmpl[i++]);
      continue;
    }
    const size_t close = tmpl.find('}', i);
    std::string_view key = tmpl.substr(i + 1, close - i - 1);
    i = close + 1;
    const bool capitalise = !key.empty() && key.back() == '^';
    if (capitalise) key.remove_suffix(1);
    const bool article = key.size() == 2 && key[0] == 'a';
    const char slot = key.back();
    constexpr std::string_view kSlots = "VANMPG";  // the order of Idea::words
    const size_t slot_index = kSlots.find(slot);
    const std::string_view word = slot_index == std::string_view::npos ? std::string_view(topics_[idea.topic])
                                                                       : VocabularyWord(idea.words[slot_index]);
    const size_t begin = out.size();
    if (article) {
      AppendWithArticle(word, out);
    } else {
      out += word;
    }
    if (capitalise && out[begin] >= 'a' && out[begin] <= 'z') {
      out[begin] = static_cast<char>(out[begin] - 'a' + 'A');
    }
  }
  return out;
}

std::string IdeaSpace::WordSalad(int rank, SimRng& rng) const {
  const Idea& idea = ideas_[rank];
  std::vector<std::string> tokens;
  // Some of the idea's own words, in no order.
  for (int w : idea.words) {
    if (rng.Chance(0.5)) tokens.emplace_back(VocabularyWord(w));
  }
  tokens.push_back(Lowercase(topics_[idea.topic]));
  const int random_words = 3 + static_cast<int>(rng.Below(4));
  for (int i = 0; i < random_words; ++i) {
    tokens.emplace_back(VocabularyWord(static_cast<int>(rng.Below(VocabularySize()))));
  }
  const int junk = 2 + static_cast<int>(rng.Below(3));
  for (int i = 0; i < junk; ++i) tokens.push_back(JunkToken(rng));
  Shuffle(tokens, rng);
  std::string out;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (i > 0) out += rng.Chance(0.1) ? " -- " : " ";
    out += tokens[i];
  }
  if (rng.Chance(0.3)) out += rng.Chance(0.5) ? " ??" : " ...";
  return out;
}

std::string IdeaSpace::Garble(std::string_view text, SimRng& rng) {
  std::string out;
  size_t i = 0;
  bool first = true;
  while (i < text.size()) {
    size_t end = text.find(' ', i);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(i, end - i);
    if (!first) out.push_back(' ');
    if (!first && rng.Chance(0.25)) {
      out +=
          rng.Chance(0.5) ? JunkToken(rng) : std::string(VocabularyWord(static_cast<int>(rng.Below(VocabularySize()))));
    } else {
      out += word;
    }
    first = false;
    i = end + 1;
  }
  while (!out.empty() && (out.back() == '.' || out.back() == '!')) out.pop_back();
  return out;
}

}  // namespace noveltygrid::sim
