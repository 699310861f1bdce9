// IdeaSpace: what a simulated model "knows" about one question -- a ranked list of distinct ideas,
// each a set of six content words from the embedded vocabulary plus one topic word taken from the
// question, and the ways to say an idea.
//
// Ideas of one question come from a pool of kPoolSize derived from the question's topic words alone,
// so all personalities draw on the same pool and paraphrases of a question share most of it; each
// personality ranks the pool in its own salience order and knows a prefix of that ranking.
// Two phrasings of one idea share its seven content words (high lexical cosine); two ideas share
// little more than the topic word (low lexical cosine). Recognize maps any text back to the idea it
// expresses by keyword overlap, which is how a simulated model reads its previous answers.
//
// Immutable after construction but for Recognize's memo; thread-safe. Construction costs ~10 microseconds, a good part
// of a simulated model's reply (serve-sim answers thousands a second): each model keeps the spaces it made in an
// IdeaSpaceCache.
#ifndef NOVELTYGRID_WORKER_SIM_SIM_IDEA_SPACE_H_
#define NOVELTYGRID_WORKER_SIM_SIM_IDEA_SPACE_H_

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "worker/sim/sim_random.h"

namespace noveltygrid::sim {

// kSentence: one sentence, for AidanBench answers. kStory: two short narrative sentences, for open
// prompts. kShort: a two-word noun phrase, for very short prompts ("Name a color").
enum class AnswerStyle { kSentence, kStory, kShort };

struct Idea {
  // Vocabulary ids, in slot order: action verb, adjective, object noun, means noun, purpose verb,
  // goal noun.
  std::array<int, 6> words;
  int topic = 0;  // index into IdeaSpace::topics()
};

// The content words of a question, in first-seen order and original spelling, without question and
// instruction words ("what", "explain"); at most six. Empty when the question has none.
std::vector<std::string> TopicWords(std::string_view question);

class IdeaSpace {
 public:
  static constexpr int kPoolSize = 400;

  // The first `size` (1..kPoolSize) ideas in `personality`'s salience order for `question`.
  IdeaSpace(std::string_view question, std::string_view personality, int size);
  int size() const { return static_cast<int>(ideas_.size()); }
  const Idea& idea(int rank) const { return ideas_[rank]; }
  const std::vector<std::string>& topics() const { return topics_; }

  // The rank of the idea `text` expresses, or -1: the idea sharing the most of its six content words
  // with the text, when it shares at least four (at least two for texts with fewer content words).
  // A model reads every earlier answer of a loop again at each iteration, so the answers are memoised
  // by text: each entry is charged its text plus kMemoEntryBytes (the table slot, the string and its
  // heap block), and past kMemoBytes per space the memo is forgotten at once and learnt again.
  int Recognize(std::string_view text) const;
  static constexpr size_t kMemoBytes = 64 * 1024;
  static constexpr size_t kMemoEntryBytes = 64;

  static int NumTemplates(AnswerStyle style);
  // Idea `rank` said with template `template_index` (taken modulo NumTemplates).
  std::string Render(int rank, AnswerStyle style, int template_index) const;
  // Incoherent text: some of the idea's words, random vocabulary and non-words, shuffled, no grammar.
  std::string WordSalad(int rank, SimRng& rng) const;
  // `text` with about a quarter of its words replaced by stray tokens: readable but sloppy.
  static std::string Garble(std::string_view text, SimRng& rng);

 private:
  std::vector<std::string> topics_;
  std::vector<Idea> ideas_;
  // Inverted index over the six content words: the ranks holding vocabulary id w are
  // postings_[posting_start_[w] .. posting_start_[w + 1]).
  std::vector<int> posting_start_;
  std::vector<int> postings_;

  int RecognizeUncached(std::string_view text) const;
  mutable absl::Mutex memo_mu_;
  mutable absl::flat_hash_map<std::string, int> memo_ ABSL_GUARDED_BY(memo_mu_);
  mutable size_t memo_bytes_ ABSL_GUARDED_BY(memo_mu_) = 0;
};

// The spaces a simulated model has made, each kept for its next replies to the same question: at most
// kCapacity of them (then the kept ones are dropped and made again as asked), each with its ideas
// (tens of KiB) and up to IdeaSpace::kMemoBytes of Recognize's memo. Thread-safe.
class IdeaSpaceCache {
 public:
  static constexpr size_t kCapacity = 4096;

  // The space IdeaSpace(question, personality, size) makes, made once per (question without its
  // surrounding whitespace, personality, size) while kept.
  std::shared_ptr<const IdeaSpace> Get(std::string_view question, std::string_view personality, int size);

 private:
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<const IdeaSpace>> spaces_ ABSL_GUARDED_BY(mu_);
};

}  // namespace noveltygrid::sim

#endif  // NOVELTYGRID_WORKER_SIM_SIM_IDEA_SPACE_H_
