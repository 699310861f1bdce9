// SimChatModel: a deterministic simulated LLM ("sim:explorer", "sim:steady", "sim:collapse",
// "sim:chaotic") for the default run, tests and load tests -- no network, no weights.
//
// It answers from an IdeaSpace of the question (the LAST <question>...</question> of the prompt, or
// the prompt itself), reads its previous answers out of the prompt (<previous_answer id='N'> items
// and earlier assistant turns), recognises which ideas they express and picks an unused one -- but
// imperfectly: with a probability that grows as the reachable ideas run out it restates an old idea,
// often verbatim, which is what ends an AidanBench loop. Higher temperature reaches further into the
// idea space and makes incoherent word salad likelier. Personalities differ in the size of their idea
// space, how well they avoid repeats and how often they lose coherence:
//
//   explorer  large space, avoids repeats well    ~20-60 valid AidanBench answers per question at 0.7
//   steady    medium                              ~8-20
//   collapse  small space, repeats itself early   ~1-5
//   chaotic   large space, often incoherent
//
// Prompts asking for <answer></answer> tags get a reply in those tags (sometimes after a short
// preamble); other prompts (NoveltyBench) get plain text. The reply is a pure function of (seed, model
// id, temperature, every message, choice index), so reruns reproduce results byte for byte.
//
// Thread-safe: immutable after construction. Complete computes on the caller's thread (microseconds)
// and delivers the reply through the executor, which must outlive pending calls.
#ifndef NOVELTYGRID_WORKER_SIM_SIM_CHAT_MODEL_H_
#define NOVELTYGRID_WORKER_SIM_SIM_CHAT_MODEL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/executor.h"
#include "worker/models/model.h"
#include "worker/sim/sim_idea_space.h"

namespace noveltygrid {

namespace sim {
struct Personality;
}  // namespace sim

class SimChatModel : public ChatModel {
 public:
  // `id` is "sim:NAME" for a known personality; InvalidArgument (listing them) otherwise.
  static absl::StatusOr<std::unique_ptr<SimChatModel>> Create(const std::string& id, Executor* executor);
  // The generator ids Create accepts, e.g. "sim:explorer".
  static std::vector<std::string> KnownIds();

  const std::string& id() const override { return id_; }
  void Complete(ChatRequest request, ChatCallback done) override;

  // The reply Complete delivers, computed synchronously (for tests and the simulated server).
  absl::StatusOr<ChatReply> Generate(const ChatRequest& request) const;
  // The same, given `request_hash` = sim::RequestHash(request, id()) (a caller that needs the hash
  // too computes it once: it reads the whole prompt).
  absl::StatusOr<ChatReply> Generate(const ChatRequest& request, uint64_t request_hash) const;

 private:
  SimChatModel(std::string id, const sim::Personality* personality, Executor* executor);

  const std::string id_;
  const sim::Personality* const personality_;  // static table entry
  Executor* const executor_;
  mutable sim::IdeaSpaceCache spaces_;  // a cache: Generate's replies do not depend on it
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_SIM_SIM_CHAT_MODEL_H_
