// What every unit run shares, whatever its benchmark: where a resumed unit starts (UnitCheckpoint),
// what it reports after each finished step (StepEvent, to a StepObserver), how it ends
// (UnitDoneCallback) and how it asks whether it still holds its lease between phases (LeaseCheck).
// A step is an AidanBench iteration or a NoveltyBench generation (common/records.h StepRecord).
#ifndef NOVELTYGRID_WORKER_UNIT_EVENTS_H_
#define NOVELTYGRID_WORKER_UNIT_EVENTS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "common/embedding.h"
#include "common/records.h"

namespace noveltygrid {

// Where a resumed unit starts: the steps done under earlier leases, with their embeddings where the
// benchmark embeds them (empty otherwise).
struct UnitCheckpoint {
  std::vector<StepRecord> answers;
  std::vector<Embedding> embeddings;
};

// One finished step, as checkpointed and reported, with every step of the unit before it (so that a
// checkpoint which missed some can catch up).
struct StepEvent {
  absl::Span<const StepRecord> steps;      // steps 1..n of the unit; the last is the one just finished
  absl::Span<const Embedding> embeddings;  // parallel to steps, or empty for a benchmark without them
  const CallStats& calls;                  // cumulative for this run of the unit

  const StepRecord& answer() const { return steps.back(); }
  // Empty for a step without one.
  const Embedding& embedding() const {
    static const Embedding kNone;
    return embeddings.empty() ? kNone : embeddings.back();
  }
};

// Returns false to abandon the unit (its lease was lost): it then ends with kStopCancelled.
using StepObserver = std::function<bool(const StepEvent&)>;
// Called once when the unit ends, with its result and the calls this run of it made.
using UnitDoneCallback = absl::AnyInvocable<void(UnitResult, CallStats) &&>;
// Asked between phases that end no step: false abandons the unit with kStopCancelled. May be empty
// (always leased).
using LeaseCheck = std::function<bool()>;

// The model call a running unit waits on (worker/activity/unit_activity.h): its latest call -- what it
// is, when it started, its provider's per-request timeout -- and how many of its calls have not ended.
struct WaitingCall {
  std::string call;  // e.g. "generate by openai:gpt-4o"
  absl::Time since;
  absl::Duration timeout;
  int in_flight = 0;
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_UNIT_EVENTS_H_
