#include "worker/engines/aidanbench_engine.h"

#include <cmath>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/aidan_scoring.h"
#include "common/text.h"
#include "worker/cache/embedding_cache.h"

namespace noveltygrid {

std::string ExtractAnswer(const std::string& reply) {
  const std::string clean = SanitizeUtf8(reply);
  std::optional<std::string> tagged = ExtractLastTag(clean, "answer");
  if (tagged.has_value()) return *tagged;
  return std::string(StripWhitespace(clean));
}

namespace {

std::optional<int> ParseTaggedScore(const std::string& reply, const char* tag, int low, int high) {
  std::optional<std::string> body = ExtractLastTag(reply, tag);
  if (!body.has_value()) return std::nullopt;
  std::optional<long long> value = ParsePythonInt(*body);
  if (!value.has_value() || *value < low || *value > high) return std::nullopt;
  return static_cast<int>(*value);
}

// One unit's loop. Owns itself through shared_ptr captures in the pending callbacks. Iterations are
// sequential; inside one, the judge, embed and similarity calls run concurrently and `mu_` guards
// their bookkeeping (calls_ and the outstanding count). The last call to finish completes the
// iteration outside the lock, so observers never run under it.
class AidanLoop : public std::enable_shared_from_this<AidanLoop> {
 public:
  AidanLoop(const AidanEngineOptions& options, const AidanModels& models, UnitSpec unit, UnitCheckpoint checkpoint,
            StepObserver on_answer, UnitDoneCallback on_done)
      : options_(options),
        models_(models),
        on_answer_(std::move(on_answer)),
        on_done_(std::move(on_done)),
        embeddings_(std::move(checkpoint.embeddings)),
        prompt_(*options.templates, unit.item_text),
        started_(options.clock->Now()) {
    result_.unit = std::move(unit);
    result_.answers = std::move(checkpoint.answers);
    result_.max_iterations = options.max_iterations;
  }

  void Start() {
    if (!result_.answers.empty()) {
      if (result_.answers.size() != embeddings_.size()) {
        return Finish(kStopError, "checkpoint holds a different number of answers and embeddings");
      }
      // A step that failed (e.g. an unparseable judge reply) is retried, not resumed from.
      if (!result_.answers.back().error.empty()) {
        result_.answers.pop_back();
        embeddings_.pop_back();
        if (result_.answers.empty()) return NextIteration();
      }
      if (AidanShouldStop(options_.preset, result_.answers.back())) return FinishAfterLastAnswer();
    }
    NextIteration();
  }

 private:
  // State of the iteration in flight: filled by the concurrent judge / embed / similarity calls.
  struct Pending {
    StepRecord answer;
    Embedding embedding;
    std::vector<std::optional<int>> similarity;  // per earlier answer, 0-100
    int outstanding = 0;
    std::string error;
  };

  std::string Key(const char* role, const std::string& model) const { return absl::StrCat(role, ":", model); }

  // Tokens and transport retries of a successful chat reply (callers hold mu_ where calls race).
  void CountReply(const std::string& key, const ChatReply& reply) { noveltygrid::CountReply(reply, calls_[key]); }

  void NextIteration() {
    if (options_.max_iterations > 0 && static_cast<int>(result_.answers.size()) >= options_.max_iterations) {
      return Finish(kStopIterationCap, "");
    }
    if (options_.max_unit_seconds > 0 && options_.clock->Now() - started_ >= absl::Seconds(options_.max_unit_seconds)) {
      return Finish(kStopTimeCap, "");
    }
    // The prompt holds every answer so far, formatted now from the records (not kept between iterations).
    ChatRequest request;
    request.messages.push_back(
        {"user",
         prompt_.Prompt(result_.answers.size(),
                        [this](size_t i) -> std::string_view { return result_.answers[i].answer; }),
         prompt_.head().size()});  // the stable prefix: the question and instructions
    request.temperature = result_.unit.temperature;
    request.max_tokens = options_.max_tokens;
    request.seed = options_.seed;
    const std::string key = Key("generate", models_.generator->id());
    calls_[key].requests++;
    models_.generator->Complete(std::move(request), [self = shared_from_this(), key](absl::StatusOr<ChatReply> reply) {
      self->OnGenerated(key, std::move(reply));
    });
  }

  void OnGenerated(const std::string& key, absl::StatusOr<ChatReply> reply) {
    if (!reply.ok() || reply->choices.empty()) {
      calls_[key].errors++;
      return Finish(kStopError, absl::StrCat("generation by ", models_.generator->id(), " failed: ",
                                             reply.ok() ? "no choices in the reply" : reply.status().ToString()));
    }
    CountReply(key, *reply);

    auto pending = std::make_shared<Pending>();
    pending->answer.answer_num = static_cast<int>(result_.answers.size()) + 1;
    pending->answer.answer = ExtractAnswer(reply->choices.front());
    pending->answer.reasoning_tokens = reply->reasoning_tokens;
    if (pending->answer.answer.empty()) {
      // Nothing to judge or embed: an empty answer is incoherent by definition and ends the loop.
      pending->answer.coherence = 0;
      pending->answer.novelty = 0;
      return Record(std::move(pending->answer), Embedding());
    }

    // A cached embedding (same embedder, dimensions and text) saves the embedding call.
    std::optional<Embedding> cached;
    if (models_.cache != nullptr) {
      cached = models_.cache->Get(models_.embedder->id(), models_.embedder->dimensions(), pending->answer.answer);
    }
    const size_t earlier = result_.answers.size();
    pending->outstanding = (cached.has_value() ? 1 : 2) + (options_.llm_novelty ? static_cast<int>(earlier) : 0);
    if (options_.llm_novelty) pending->similarity.resize(earlier);
    // Hold the lock while fanning out so that the call counters stay consistent with the callbacks.
    absl::MutexLock lock(&mu_);
    if (cached.has_value()) {
      pending->embedding = std::move(*cached);
      calls_[Key("embed", models_.embedder->id())].cache_hits++;
    }
    Judge(pending, 0);
    if (!cached.has_value()) Embed(pending);
    for (size_t i = 0; options_.llm_novelty && i < earlier; ++i) CompareWithEarlier(pending, i, 0);
  }

  void Judge(std::shared_ptr<Pending> pending, int attempt) {
    ChatRequest request;
    request.messages.push_back(
        {"user", options_.templates->CoherencePrompt(result_.unit.item_text, pending->answer.answer,
                                                     options_.preset.judge_scale_max)});
    request.temperature = 0;
    request.max_tokens = 1000;
    request.seed = options_.seed;
    const std::string key = Key("judge", models_.judge->id());
    {
      CallCounters& c = calls_[key];
      c.requests++;
      if (attempt > 0) c.retries++;
    }
    models_.judge->Complete(std::move(request), [self = shared_from_this(), pending, attempt,
                                                 key](absl::StatusOr<ChatReply> reply) mutable {
      std::optional<int> score;
      std::string why;
      absl::ReleasableMutexLock lock(&self->mu_);
      if (!reply.ok() || reply->choices.empty()) {
        why = reply.ok() ? "the reply had no choices" : reply.status().ToString();
      } else {
        self->CountReply(key, *reply);
        score = ParseCoherenceScore(reply->choices.front(), self->options_.preset.judge_scale_max);
        if (!score.has_value()) {
          why = absl::StrCat("no integer 0-", self->options_.preset.judge_scale_max,
                             " in <coherence_score> tags in the reply: \"",
                             SanitizeUtf8(reply->choices.front().substr(0, 200)), "\"");
        }
      }
      if (score.has_value()) {
        pending->answer.coherence = *score;
      } else if (reply.ok() && attempt < self->options_.judge_retries) {  // re-ask only when it answered
        self->Judge(std::move(pending), attempt + 1);
        return;  // still outstanding
      } else {
        self->calls_[key].errors++;
        pending->error = absl::StrCat("coherence judge ", self->models_.judge->id(), " failed after ", attempt + 1,
                                      " attempts: ", why);
      }
      const bool last = self->Arrived(*pending);
      lock.Release();
      if (last) self->Complete(std::move(pending));
    });
  }

  void Embed(std::shared_ptr<Pending> pending) {
    const std::string key = Key("embed", models_.embedder->id());
    calls_[key].requests++;
    models_.embedder->Embed(
        {pending->answer.answer}, [self = shared_from_this(), pending, key](absl::StatusOr<EmbedReply> reply) mutable {
          absl::ReleasableMutexLock lock(&self->mu_);
          if (reply.ok()) {
            self->calls_[key].prompt_tokens += reply->prompt_tokens;
            self->calls_[key].retries += reply->retries;
            self->calls_[key].hedges += reply->hedges;  // their tokens are in prompt_tokens
          }
          absl::StatusOr<std::vector<Embedding>> vectors =
              reply.ok() ? absl::StatusOr<std::vector<Embedding>>(std::move(reply->vectors)) : reply.status();
          if (!vectors.ok() || vectors->size() != 1) {
            self->calls_[key].errors++;
            pending->error =
                absl::StrCat("embedding by ", self->models_.embedder->id(),
                             " failed: ", vectors.ok() ? "wrong number of vectors" : vectors.status().ToString());
          } else {
            pending->embedding = std::move(vectors->front());
            if (self->models_.cache != nullptr) {
              self->models_.cache->Put(self->models_.embedder->id(), self->models_.embedder->dimensions(),
                                       pending->answer.answer, pending->embedding);
            }
          }
          const bool last = self->Arrived(*pending);
          lock.Release();
          if (last) self->Complete(std::move(pending));
        });
  }

  void CompareWithEarlier(std::shared_ptr<Pending> pending, size_t index, int attempt) {
    ChatRequest request;
    request.messages.push_back(
        {"user", options_.templates->SimilarityPrompt(result_.unit.item_text, result_.answers[index].answer,
                                                      pending->answer.answer)});
    request.temperature = 0;
    request.max_tokens = 1000;
    request.seed = options_.seed;
    const std::string key = Key("judge", models_.judge->id());
    calls_[key].requests++;
    if (attempt > 0) calls_[key].retries++;
    models_.judge->Complete(std::move(request), [self = shared_from_this(), pending, index, attempt,
                                                 key](absl::StatusOr<ChatReply> reply) mutable {
      absl::ReleasableMutexLock lock(&self->mu_);
      std::optional<int> score;
      if (reply.ok() && !reply->choices.empty()) {
        self->CountReply(key, *reply);
        score = ParseTaggedScore(reply->choices.front(), "similarity_score", 0, 100);
      }
      if (score.has_value()) {
        pending->similarity[index] = score;
      } else if (reply.ok() && attempt < self->options_.judge_retries) {
        self->CompareWithEarlier(std::move(pending), index, attempt + 1);
        return;
      } else {
        self->calls_[key].errors++;
        pending->error = reply.ok() ? absl::StrCat("similarity judge ", self->models_.judge->id(),
                                                   " gave no parseable <similarity_score> for answer ", index + 1,
                                                   " after ", attempt + 1, " attempts")
                                    : absl::StrCat("similarity judge ", self->models_.judge->id(),
                                                   " failed: ", reply.status().ToString());
      }
      const bool last = self->Arrived(*pending);
      lock.Release();
      if (last) self->Complete(std::move(pending));
    });
  }

  // Counts one finished call of the iteration; true for the last one. Called with mu_ held.
  bool Arrived(Pending& pending) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return --pending.outstanding == 0; }

  // All of the iteration's calls are done; runs outside mu_ on the thread of the last one.
  void Complete(std::shared_ptr<Pending> pending) {
    if (pending->error.empty() && !embeddings_.empty() && pending->embedding.size() != embeddings_.front().size()) {
      pending->error = absl::StrCat("embedder ", models_.embedder->id(), " returned ", pending->embedding.size(),
                                    " dimensions where earlier answers had ", embeddings_.front().size());
    }
    if (!pending->error.empty()) {
      pending->answer.error = pending->error;
    } else {
      // The squared norms of the earlier embeddings: each new one's comes with its novelty; those a
      // checkpoint brought (or a step that failed stored) are computed as they are first needed.
      // embeddings_ only grows after construction.
      while (squared_.size() < embeddings_.size()) squared_.push_back(SquaredNorm(embeddings_[squared_.size()]));
      double squared = 0;
      pending->answer.novelty = AidanNovelty(pending->embedding, embeddings_, squared_, &squared);
      squared_.push_back(squared);  // Record adds the embedding it belongs to
      if (options_.llm_novelty) {
        int max_similarity = 0;
        for (const std::optional<int>& s : pending->similarity) max_similarity = std::max(max_similarity, *s);
        pending->answer.llm_novelty = pending->similarity.empty() ? 1.0 : 1.0 - max_similarity / 100.0;
      }
    }
    Record(std::move(pending->answer), std::move(pending->embedding));
  }

  void Record(StepRecord answer, Embedding embedding) {
    result_.answers.push_back(std::move(answer));
    embeddings_.push_back(std::move(embedding));
    MarkValidAnswers(options_.preset, result_.answers);
    if (on_answer_ && !on_answer_(StepEvent{result_.answers, embeddings_, calls_})) {
      return Finish(kStopCancelled, "");
    }
    if (AidanShouldStop(options_.preset, result_.answers.back())) return FinishAfterLastAnswer();
    NextIteration();
  }

  void FinishAfterLastAnswer() {
    const StepRecord& last = result_.answers.back();
    if (!last.error.empty()) return Finish(kStopError, last.error);
    if (last.coherence <= options_.preset.stop_coherence_at_most) return Finish(kStopIncoherent, "");
    return Finish(kStopRepetitive, "");
  }

  void Finish(const char* reason, std::string error) {
    result_.stop_reason = reason;
    result_.error = std::move(error);
    MarkValidAnswers(options_.preset, result_.answers);
    std::move(on_done_)(std::move(result_), std::move(calls_));
  }

  const AidanEngineOptions options_;
  const AidanModels models_;
  StepObserver on_answer_;
  UnitDoneCallback on_done_;

  absl::Mutex mu_;  // guards the join of an iteration's concurrent calls and calls_ during it
  UnitResult result_;
  std::vector<Embedding> embeddings_;     // one per answer in result_.answers
  std::vector<double> squared_;           // SquaredNorm of embeddings_, as far as Complete has needed them
  const GenerationPromptBuilder prompt_;  // the generation prompt's head; formats the answers (NextIteration)
  const absl::Time started_;              // when this lease started the loop (max_unit_seconds)
  CallStats calls_;
};

}  // namespace

std::optional<int> ParseCoherenceScore(const std::string& reply, int scale_max) {
  return ParseTaggedScore(reply, "coherence_score", 0, scale_max);
}

double AidanNovelty(const Embedding& candidate, const std::vector<Embedding>& earlier) {
  std::vector<double> squared;
  squared.reserve(earlier.size());
  for (const Embedding& e : earlier) squared.push_back(SquaredNorm(e));
  return AidanNovelty(candidate, earlier, squared);
}

double AidanNovelty(const Embedding& candidate, const std::vector<Embedding>& earlier,
                    const std::vector<double>& earlier_squared, double* candidate_squared) {
  const CandidateCosines cosines = MaxCosineAndSquaredNorm(candidate, earlier, earlier_squared);
  if (candidate_squared != nullptr) *candidate_squared = cosines.squared;
  return earlier.empty() ? 1.0 : 1.0 - cosines.max_cosine;
}

void RunAidanLoop(const AidanEngineOptions& options, const AidanModels& models, UnitSpec unit,
                  UnitCheckpoint checkpoint, StepObserver on_answer, UnitDoneCallback on_done) {
  auto loop = std::make_shared<AidanLoop>(options, models, std::move(unit), std::move(checkpoint), std::move(on_answer),
                                          std::move(on_done));
  loop->Start();
}

}  // namespace noveltygrid
