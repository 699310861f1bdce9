#include "worker/sim/sim_judge_model.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/hashing.h"
#include "common/text.h"
#include "worker/models/lexical_embedder.h"
#include "worker/sim/sim_common.h"
#include "worker/sim/sim_idea_space.h"
#include "worker/sim/sim_vocabulary.h"

namespace noveltygrid {

namespace {

constexpr char kRefusal[] =
    "I can only rate an answer for coherence or compare two answers for similarity, and this "
    "request asks for neither, so I cannot give a score.";
constexpr char kFlakyNoTag[] = "The answer seems reasonable overall; I would rate it fairly high.";

// Body span [first, second) of the LAST <tag>...</tag> match, with ExtractLastTag's semantics.
std::optional<std::pair<size_t, size_t>> LastTagSpan(std::string_view text, std::string_view tag) {
  std::string open = "<", close = "</";
  open.append(tag).push_back('>');
  close.append(tag).push_back('>');
  std::optional<std::pair<size_t, size_t>> last;
  size_t pos = 0;
  while (true) {
    const size_t start = text.find(open, pos);
    if (start == std::string_view::npos) break;
    const size_t body = start + open.size();
    const size_t stop = text.find(close, body);
    if (stop == std::string_view::npos) break;
    last = std::make_pair(body, stop);
    pos = stop + close.size();
  }
  return last;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// True when `text` contains `phrase` not glued to other digits ("1-10" but not "81-100").
bool ContainsNumberPhrase(std::string_view text, std::string_view phrase) {
  size_t pos = 0;
  while ((pos = text.find(phrase, pos)) != std::string_view::npos) {
    const size_t end = pos + phrase.size();
    if ((pos == 0 || !IsDigit(text[pos - 1])) && (end == text.size() || !IsDigit(text[end]))) {
      return true;
    }
    ++pos;
  }
  return false;
}

// The judge prompt's own wording asks for a 1-10 score. The question and answer are cut out first,
// so an answer that mentions "1-10" does not change the scale.
bool AsksForTenPointScale(std::string_view prompt) {
  std::vector<std::pair<size_t, size_t>> cuts;
  if (auto span = LastTagSpan(prompt, "question")) cuts.push_back(*span);
  if (auto span = LastTagSpan(prompt, "answer")) cuts.push_back(*span);
  std::sort(cuts.begin(), cuts.end());
  std::string frame;
  size_t pos = 0;
  for (auto [begin, end] : cuts) {
    if (begin > pos) frame.append(prompt.substr(pos, begin - pos));
    frame.push_back(' ');
    pos = std::max(pos, end);
  }
  frame.append(prompt.substr(pos));
  for (std::string_view phrase : {"1 to 10", "1-10", "1 - 10",
                                  "1\xE2\x80\x93"
                                  "10"}) {
    if (ContainsNumberPhrase(frame, phrase)) return true;
  }
  return false;
}

// Alphabetic, has a vowel, no run of five consonants: could be an English word we do not list.
bool LooksLikeWord(std::string_view word) {
  if (word.size() > 16) return false;
  bool vowel = false;
  int consonant_run = 0;
  for (unsigned char c : word) {
    if (c >= 0x80) return true;  // non-ASCII script: give it the benefit of the doubt
    if (c < 'a' || c > 'z') return false;
    const bool is_vowel = c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y';
    vowel |= is_vowel;
    consonant_run = is_vowel ? 0 : consonant_run + 1;
    if (consonant_run >= 5) return false;
  }
  return vowel;
}

// Deterministic jitter in [0, 1) from the text.
double TextJitter(std::string_view a, std::string_view b) {
  return static_cast<double>(StableHasher().Add("judge-jitter").Add(a).Add(b).Finish() >> 11) * 0x1.0p-53;
}

double Clamp01(double x) { return std::clamp(x, 0.0, 1.0); }

}  // namespace

int SimJudgeModel::ScoreCoherence(std::string_view question, std::string_view answer) {
  const std::vector<std::string> words = LexicalWords(answer);
  if (words.empty()) return 0;
  // Topic words come in their original spelling; compare them lowercased, as the answer's words are.
  std::vector<std::string> topics;
  for (const std::string& topic : sim::TopicWords(question)) {
    for (std::string& word : LexicalWords(topic)) topics.push_back(std::move(word));
  }

  const double n = static_cast<double>(words.size());
  double known = 0;
  int function_words = 0, vocabulary_words = 0, long_run_words = 0, run = 0;
  bool on_topic = false;
  for (const std::string& word : words) {
    const bool function = sim::IsFunctionWord(word);
    const bool topic = std::find(topics.begin(), topics.end(), word) != topics.end();
    const bool vocabulary = sim::VocabularyId(word) >= 0;
    on_topic |= topic;
    function_words += function;
    vocabulary_words += vocabulary;
    if (function || vocabulary || topic || sim::IsCommonWord(word)) {
      known += 1.0;
    } else if (LooksLikeWord(word)) {
      known += 0.8;
    }
    // Runs of four or more content words in a row rarely occur in a grammatical sentence.
    if (function) {
      run = 0;
    } else if (++run == 4) {
      long_run_words += 4;
    } else if (run > 4) {
      long_run_words += 1;
    }
  }
  const double f_known = known / n;
  const double f_function = Clamp01((function_words / n - 0.08) / 0.17);
  const double f_runs = 1.0 - long_run_words / n;
  const double grammar = std::min(f_function, f_runs);

  // Sentence shape: capital first letter, end punctuation, sentence length.
  const std::string_view stripped = StripWhitespace(answer);
  double shape = 0;
  for (char c : stripped) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      shape += (c >= 'A' && c <= 'Z') ? 0.3 : 0.0;
      break;
    }
  }
  const size_t last = stripped.find_last_not_of("\"')]*");
  if (last != std::string_view::npos && std::string_view(".!?").find(stripped[last]) != std::string_view::npos)
    shape += 0.4;
  int sentences = 0;
  for (char c : stripped) sentences += (c == '.' || c == '!' || c == '?') ? 1 : 0;
  const double words_per_sentence = n / std::max(1, sentences);
  if (words_per_sentence >= 4 && words_per_sentence <= 45) shape += 0.3;

  const double content = n - function_words;
  double relevance = 0.3;
  if (on_topic || topics.empty()) {
    relevance = 1.0;
  } else if (content > 0 && vocabulary_words / content >= 0.5) {
    relevance = 0.6;
  }
  const double length = n < 4 ? 0.6 : 1.0;

  // A plausibility factor stands in for everything a text-only judge cannot check.
  const double plausibility = 0.66 + 0.3 * TextJitter(question, answer);
  const double quality =
      f_known * f_known * (0.08 + 0.92 * grammar) * (0.45 + 0.3 * shape + 0.25 * relevance) * length * plausibility;
  return static_cast<int>(std::clamp(std::round(100.0 * quality), 0.0, 100.0));
}

std::string SimJudgeModel::GroupResponses(const std::vector<std::string>& responses) {
  std::vector<size_t> first_members;  // per group, its first response
  std::string labels;
  for (size_t i = 0; i < responses.size(); ++i) {
    size_t group = first_members.size();
    for (size_t g = 0; g < first_members.size() && group == first_members.size(); ++g) {
      if (ScoreSimilarity(responses[first_members[g]], responses[i]) > kSameIdeaSimilarity) group = g;
    }
    if (group == first_members.size()) first_members.push_back(i);
    absl::StrAppend(&labels, i == 0 ? "" : ", ", group + 1);
  }
  return labels;
}

int SimJudgeModel::ScoreSimilarity(std::string_view answer1, std::string_view answer2) {
  auto content = [](std::string_view text) {
    std::vector<std::string> words;
    for (std::string& w : LexicalWords(text)) {
      if (sim::IsFunctionWord(w) || IsLexicalStopword(w)) continue;
      if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(std::move(w));
    }
    return words;
  };
  const std::vector<std::string> a = content(answer1), b = content(answer2);
  if (a.empty() || b.empty()) return 0;
  int shared = 0;
  for (const std::string& w : a) shared += std::find(b.begin(), b.end(), w) != b.end();
  const double cosine = shared / std::sqrt(static_cast<double>(a.size()) * b.size());
  const double jitter = 6.0 * TextJitter(answer1, answer2) - 3.0;
  return static_cast<int>(std::clamp(std::round(100.0 * cosine + jitter), 0.0, 100.0));
}

absl::StatusOr<std::unique_ptr<SimJudgeModel>> SimJudgeModel::Create(const std::string& id, Executor* executor) {
  if (executor == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("model '", id, "': no executor given"));
  }
  if (id != "sim:judge" && id != "sim:judge-flaky") {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", id, "': not a simulated judge; use sim:judge or sim:judge-flaky"));
  }
  return std::unique_ptr<SimJudgeModel>(new SimJudgeModel(id, id == "sim:judge-flaky", executor));
}

SimJudgeModel::SimJudgeModel(std::string id, bool flaky, Executor* executor)
    : id_(std::move(id)), flaky_(flaky), executor_(executor) {}

void SimJudgeModel::Complete(ChatRequest request, ChatCallback done) {
  sim::Deliver(executor_, std::move(done), Judge(request));
}

absl::StatusOr<ChatReply> SimJudgeModel::Judge(const ChatRequest& request) {
  if (absl::Status status = sim::ValidateRequest(request, id_); !status.ok()) return status;
  const std::string_view prompt = request.messages[sim::LastUserMessage(request)].content;

  std::string text;
  std::string tag;
  const std::optional<std::string> answer1 = ExtractLastTag(prompt, "answer1");
  const std::optional<std::string> answer2 = ExtractLastTag(prompt, "answer2");
  const std::optional<std::string> answer = ExtractLastTag(prompt, "answer");
  std::vector<std::string> responses;  // <response1>, <response2>, ... as listed
  for (std::optional<std::string> r; (r = ExtractLastTag(prompt, absl::StrCat("response", responses.size() + 1)));) {
    responses.push_back(*std::move(r));
  }
  if (!responses.empty() && prompt.find("<groups>") != std::string_view::npos) {
    tag = "groups";
    text = GroupResponses(responses);
  } else if (answer1 && answer2) {
    tag = "similarity_score";
    text = absl::StrCat(ScoreSimilarity(*answer1, *answer2));
  } else if (answer && prompt.find("coherence_score") != std::string_view::npos) {
    tag = "coherence_score";
    const std::string question = ExtractLastTag(prompt, "question").value_or("");
    const int score = ScoreCoherence(question, *answer);
    // 0..100 maps onto 1..10 with rounding: 0 -> 1, 50 -> 6, 100 -> 10.
    text = absl::StrCat(AsksForTenPointScale(prompt) ? 1 + (score * 9 + 50) / 100 : score);
  }

  auto tagged = [&tag](const std::string& value) { return absl::StrCat("<", tag, ">", value, "</", tag, ">"); };
  std::string reply_text = tag.empty() ? std::string(kRefusal) : tagged(text);
  if (flaky_ && !tag.empty()) {
    const uint64_t call = calls_.fetch_add(1, std::memory_order_relaxed);
    const uint64_t h = StableHasher().Add("flaky").Add(prompt).Add(call).Finish();
    if (h % 100 < 30) reply_text = (h >> 32) % 2 == 0 ? std::string(kFlakyNoTag) : tagged("7.5");
  }

  ChatReply reply;
  reply.prompt_tokens = sim::CountPromptWords(request);
  for (int i = 0; i < request.n; ++i) {
    std::string choice = TruncateWords(reply_text, request.max_tokens);
    reply.completion_tokens += sim::CountWords(choice);
    reply.choices.push_back(std::move(choice));
  }
  return reply;
}

}  // namespace noveltygrid
