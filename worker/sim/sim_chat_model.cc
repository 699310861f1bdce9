#include "worker/sim/sim_chat_model.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/hashing.h"
#include "common/text.h"
#include "worker/sim/sim_common.h"
#include "worker/sim/sim_idea_space.h"
#include "worker/sim/sim_random.h"

namespace noveltygrid {

namespace sim {

// How one simulated model behaves. Probabilities are per answer; "heat" is 0.3 + temperature^2.
struct Personality {
  const char* name;
  int min_ideas, max_ideas;        // size of its idea space for a question (hash-chosen in range)
  double reach_base, reach_slope;  // fraction of the space reachable: base + slope * temperature
  double breadth;                  // mean number of unused ideas skipped, per unit of temperature
  double miss;                     // chance of restating an old idea although new ones remain
  double exhaustion;               // extra restating chance: exhaustion * (used / reachable)^2
  double copy;                     // given a restatement, chance it repeats the old text verbatim
  double incoherent;               // word-salad chance, times heat
  double sloppy;                   // chance of a garbled but readable answer, times heat
  double preamble;                 // chance of a short preamble before the <answer> tag
};

constexpr Personality kPersonalities[] = {
    // name       ideas     reach       breadth miss  exh   copy  incoh  sloppy preamble
    {"explorer", 150, 260, 0.35, 0.40, 5.0, 0.004, 1.0, 0.35, 0.006, 0.03, 0.3},
    {"steady", 50, 100, 0.40, 0.50, 1.5, 0.070, 1.0, 0.50, 0.015, 0.05, 0.4},
    {"collapse", 30, 45, 0.30, 0.40, 0.4, 0.400, 1.5, 0.80, 0.030, 0.05, 0.5},
    {"chaotic", 250, 400, 0.50, 0.50, 6.0, 0.020, 1.0, 0.30, 0.120, 0.20, 0.3},
};

}  // namespace sim

namespace {

using sim::AnswerStyle;
using sim::IdeaSpace;
using sim::Personality;
using sim::SimRng;

constexpr const char* kPreambles[] = {
    "Here is a new answer:",     "Sure! Here's another idea.", "Certainly.", "Here's one I have not given before:",
    "Okay, a different answer:",
};

// Prompts of at most this many words get short answers ("Name a color").
constexpr int64_t kShortPromptWords = 5;

// What the model reads from the conversation.
struct Conversation {
  std::string question;
  bool wants_answer_tags = false;
  std::vector<std::string> previous;  // previous answers, oldest first
};

// Bodies of <previous_answer ...>...</previous_answer> items, in order; tolerant of any attributes.
void AppendPreviousAnswers(std::string_view text, std::vector<std::string>& out) {
  constexpr std::string_view kOpen = "<previous_answer";
  constexpr std::string_view kClose = "</previous_answer>";
  size_t pos = 0;
  while (true) {
    size_t open = text.find(kOpen, pos);
    if (open == std::string_view::npos) return;
    // "<previous_answers>" is the enclosing block, not an item.
    const size_t after = open + kOpen.size();
    if (after < text.size() && text[after] != '>' && text[after] != ' ') {
      pos = after;
      continue;
    }
    size_t body = text.find('>', after);
    if (body == std::string_view::npos) return;
    ++body;
    size_t close = text.find(kClose, body);
    if (close == std::string_view::npos) return;
    out.emplace_back(StripWhitespace(text.substr(body, close - body)));
    pos = close + kClose.size();
  }
}

Conversation ReadConversation(const ChatRequest& request) {
  Conversation conv;
  const int last_user = sim::LastUserMessage(request);
  std::string_view instruction = request.messages[last_user].content;
  std::optional<std::string> question = ExtractLastTag(instruction, "question");
  if (!question) {
    // In-context sampling ("Can you generate a different answer?"): the request is the first user
    // turn, and the assistant turns are the previous answers.
    bool earlier_assistant = false;
    for (int i = 0; i < last_user; ++i) earlier_assistant |= request.messages[i].role == "assistant";
    if (earlier_assistant) {
      for (int i = 0; i < last_user; ++i) {
        if (request.messages[i].role == "user") {
          instruction = request.messages[i].content;
          break;
        }
      }
      question = ExtractLastTag(instruction, "question");
    }
  }
  conv.question = question ? *question : std::string(StripWhitespace(instruction));
  conv.wants_answer_tags = instruction.find("<answer>") != std::string_view::npos;
  AppendPreviousAnswers(instruction, conv.previous);
  for (int i = 0; i < last_user; ++i) {
    const ChatMessage& message = request.messages[i];
    if (message.role != "assistant") continue;
    std::optional<std::string> answer = ExtractLastTag(message.content, "answer");
    conv.previous.push_back(answer ? *answer : std::string(StripWhitespace(message.content)));
  }
  return conv;
}

// The previous answers mapped onto the idea space.
struct Memory {
  std::vector<int> last_text;  // per rank: index of the latest previous answer expressing it, or -1
  std::vector<int> used;       // ranks expressed so far, in first-seen order
};

Memory Remember(const IdeaSpace& space, const std::vector<std::string>& previous) {
  Memory memory;
  memory.last_text.assign(space.size(), -1);
  for (int i = 0; i < static_cast<int>(previous.size()); ++i) {
    const int rank = space.Recognize(previous[i]);
    if (rank < 0) continue;
    if (memory.last_text[rank] < 0) memory.used.push_back(rank);
    memory.last_text[rank] = i;
  }
  return memory;
}

// Walks unused ideas in salience order, taking each with probability 1 / (1 + mean_skip); falls
// back to the first unused one. Returns -1 when every reachable idea is used.
int PickFreshIdea(const Memory& memory, int reachable, double mean_skip, SimRng& rng) {
  const double take = 1.0 / (1.0 + mean_skip);
  int first_unused = -1;
  for (int rank = 0; rank < reachable; ++rank) {
    if (memory.last_text[rank] >= 0) continue;
    if (first_unused < 0) first_unused = rank;
    if (rng.Chance(take)) return rank;
  }
  return first_unused;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SimChatModel>> SimChatModel::Create(const std::string& id, Executor* executor) {
  if (executor == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("model '", id, "': no executor given"));
  }
  for (const Personality& p : sim::kPersonalities) {
    if (id == absl::StrCat("sim:", p.name)) {
      return std::unique_ptr<SimChatModel>(new SimChatModel(id, &p, executor));
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("model '", id, "': unknown simulated model; known: ",
                                                 absl::StrJoin(KnownIds(), ", "), ", sim:judge, sim:judge-flaky"));
}

std::vector<std::string> SimChatModel::KnownIds() {
  std::vector<std::string> ids;
  for (const Personality& p : sim::kPersonalities) ids.push_back(absl::StrCat("sim:", p.name));
  return ids;
}

SimChatModel::SimChatModel(std::string id, const sim::Personality* personality, Executor* executor)
    : id_(std::move(id)), personality_(personality), executor_(executor) {}

void SimChatModel::Complete(ChatRequest request, ChatCallback done) {
  sim::Deliver(executor_, std::move(done), Generate(request));
}

absl::StatusOr<ChatReply> SimChatModel::Generate(const ChatRequest& request) const {
  return Generate(request, sim::RequestHash(request, id_));
}

absl::StatusOr<ChatReply> SimChatModel::Generate(const ChatRequest& request, uint64_t request_hash) const {
  if (absl::Status status = sim::ValidateRequest(request, id_); !status.ok()) return status;
  const Personality& p = *personality_;
  const Conversation conv = ReadConversation(request);

  const uint64_t question_hash =
      StableHasher().Add("sim-space").Add(p.name).Add(StripWhitespace(conv.question)).Finish();
  const int space_size = p.min_ideas + static_cast<int>(question_hash % (p.max_ideas - p.min_ideas + 1));
  const std::shared_ptr<const IdeaSpace> shared_space = spaces_.Get(conv.question, p.name, space_size);
  const IdeaSpace& space = *shared_space;
  const Memory memory = Remember(space, conv.previous);

  AnswerStyle style = AnswerStyle::kSentence;
  if (!conv.wants_answer_tags) {
    style = sim::CountWords(conv.question) <= kShortPromptWords ? AnswerStyle::kShort : AnswerStyle::kStory;
  }

  const double t = request.temperature;
  const double heat = 0.3 + t * t;
  const int reachable = std::clamp(
      static_cast<int>(std::ceil(space.size() * std::min(1.0, p.reach_base + p.reach_slope * t))), 1, space.size());
  int used_reachable = 0;
  for (int rank : memory.used) used_reachable += rank < reachable ? 1 : 0;
  const double exhausted = static_cast<double>(used_reachable) / reachable;
  const double restate = std::min(1.0, p.miss + (1.0 - p.miss) * p.exhaustion * exhausted * exhausted);

  ChatReply reply;
  reply.prompt_tokens = sim::CountPromptWords(request);
  for (int choice = 0; choice < request.n; ++choice) {
    SimRng rng(StableHasher().Add(request_hash).Add(static_cast<uint64_t>(choice)).Finish());
    std::string body;
    int fresh = PickFreshIdea(memory, reachable, p.breadth * t, rng);
    const bool restating = !memory.used.empty() && (fresh < 0 || rng.Chance(restate));
    if (rng.Chance(p.incoherent * heat)) {
      body = space.WordSalad(fresh >= 0 ? fresh : memory.used[rng.Below(memory.used.size())], rng);
    } else if (restating) {
      const int rank = memory.used[rng.Below(memory.used.size())];
      body = rng.Chance(p.copy)
                 ? conv.previous[memory.last_text[rank]]
                 : space.Render(rank, style, static_cast<int>(rng.Below(IdeaSpace::NumTemplates(style))));
    } else {
      if (fresh < 0) fresh = 0;  // nothing used and nothing reachable cannot happen; be safe
      body = space.Render(fresh, style, static_cast<int>(rng.Below(IdeaSpace::NumTemplates(style))));
      if (rng.Chance(p.sloppy * heat)) body = IdeaSpace::Garble(body, rng);
    }

    std::string text;
    if (conv.wants_answer_tags) {
      if (rng.Chance(p.preamble)) {
        absl::StrAppend(&text, kPreambles[rng.Below(std::size(kPreambles))], "\n");
      }
      absl::StrAppend(&text, "<answer>", body, "</answer>");
    } else {
      text = std::move(body);
    }
    text = TruncateWords(SanitizeUtf8(text), request.max_tokens);
    reply.completion_tokens += sim::CountWords(text);
    reply.choices.push_back(std::move(text));
  }
  return reply;
}

}  // namespace noveltygrid
