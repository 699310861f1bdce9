// LeaseLoop's sender thread: every outgoing Report, commit and Release, in rounds -- each round's
// steps in one Report, then its finished units in one CompleteMany (several units, persisted and
// answered together), then its releases -- so model callbacks never block on the network and a worker
// with thousands of loops makes a few RPCs per round, not one per unit.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "proto/limits.h"
#include "proto/report_batches.h"
#include "worker/lease_loop.h"

namespace noveltygrid {

void LeaseLoop::SendLoop() {
  int report_failures = 0;
  absl::Time last_round = absl::InfinitePast();
  while (true) {
    if (report_failures > 0) Pause(Backoff(report_failures), /*wake_on_drain=*/false);
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !outgoing_.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) return;
    }
    // Something waits: let the round fill until the interval since the last one has passed -- unless
    // no loop is left to add to it (the worker's last unit just finished): then it goes now.
    if (const absl::Duration wait = last_round + options_.min_round_interval - clock_->Now();
        wait > absl::ZeroDuration()) {
      Pause(wait, /*wake_on_drain=*/true, /*committed=*/std::nullopt, /*wake_when_idle=*/true);
    }
    last_round = clock_->Now();
    Outgoing batch;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      std::swap(batch, outgoing_);
      ++sending_;
    }
    report_failures = SendReports(std::move(batch.steps)) ? 0 : report_failures + 1;
    // Once stopping, what is left is dropped: the coordinator takes those leases back by itself.
    if (!Stopping()) SendCompletes(std::move(batch.completes));
    for (const v1::ReleaseRequest& r : batch.releases) {
      if (Stopping()) break;
      SendRelease(r);
    }
    absl::MutexLock lock(&mu_);
    --sending_;
  }
}

bool LeaseLoop::SendReports(std::map<std::string, std::vector<v1::Step>> steps) {
  // Every lease's new steps in one request (split only when it grows large), so a worker with
  // hundreds of loops makes one Report RPC per round rather than one per lease.
  bool delivered = true;
  auto send = [&](v1::ReportRequest& request) {
    request.set_worker_id(options_.worker_id);
    v1::ReportResponse response;
    absl::Status status = client_->Report(request, &response, Deadline());
    absl::MutexLock lock(&mu_);
    if (!status.ok()) {
      delivered = false;
      // Keep the steps, in order, ahead of any newer ones: the next round sends them again.
      for (v1::LeaseSteps& lease : *request.mutable_leases()) {
        auto it = active_.find(lease.lease_id());
        if (it == active_.end() || !it->second.running) continue;
        std::vector<v1::Step>& queued = outgoing_.steps[lease.lease_id()];
        queued.insert(queued.begin(), std::make_move_iterator(lease.mutable_steps()->begin()),
                      std::make_move_iterator(lease.mutable_steps()->end()));
      }
    } else {
      const absl::flat_hash_set<std::string> rejected(response.rejected_lease_ids().begin(),
                                                      response.rejected_lease_ids().end());
      for (const v1::LeaseSteps& lease : request.leases()) {
        if (!rejected.contains(lease.lease_id())) {
          stats_.steps_reported += lease.steps_size();
        } else {
          TakeBack(lease.lease_id());
        }
      }
    }
  };
  PackReports(
      steps,
      [&](const std::string& lease_id) -> std::optional<uint64_t> {
        absl::MutexLock lock(&mu_);
        auto it = active_.find(lease_id);
        if (it == active_.end() || it->second.lost || !it->second.running) return std::nullopt;
        return it->second.token;
      },
      send);
  return delivered;
}

void LeaseLoop::SendCompletes(std::vector<v1::CompleteRequest> completes) {
  // Units split in requests of at most this size (a round of a large worker is a few MB at most).
  constexpr size_t kCommitBytes = kMaxMessageBytes / 8;
  for (int failures = 0; !completes.empty(); ++failures) {
    if (failures > 0) {
      if (Stopping()) return;
      Pause(Backoff(failures), /*wake_on_drain=*/false);
    }
    std::vector<v1::CompleteRequest> retry;
    size_t begin = 0;
    while (begin < completes.size()) {
      v1::CompleteManyRequest request;
      request.set_worker_id(options_.worker_id);
      size_t bytes = 0;
      for (; begin < completes.size() && (request.units_size() == 0 || bytes < kCommitBytes); ++begin) {
        bytes += completes[begin].ByteSizeLong();
        *request.add_units() = std::move(completes[begin]);
      }
      bool call_failed = false;
      std::vector<CommitOutcome> outcomes = Commit(request, &call_failed);
      absl::MutexLock lock(&mu_);
      for (int i = 0; i < request.units_size(); ++i) {
        v1::CompleteRequest& unit = *request.mutable_units(i);
        const CommitOutcome& outcome = outcomes[i];
        // Settled: committed, or refused for good. Anything else (the coordinator away, or the result
        // not persisted) is sent again.
        if (!outcome.status.ok() && !absl::IsNotFound(outcome.status) && !absl::IsUnauthenticated(outcome.status)) {
          if (!stopping_) retry.push_back(std::move(unit));
          continue;
        }
        if (outcome.status.ok() && outcome.response.accepted()) {
          ++stats_.units_committed;
        } else {
          Log(absl::StrCat("result of unit ", unit.unit_id(), " was refused (",
                           outcome.status.ok() ? "the lease was taken back" : outcome.status.message(), ")"));
        }
        active_.erase(unit.lease_id());
      }
      // The coordinator is away (or this worker is stopping): the other chunks wait for the backoff.
      if (call_failed || stopping_) {
        if (!stopping_) {
          for (; begin < completes.size(); ++begin) retry.push_back(std::move(completes[begin]));
        }
        break;
      }
    }
    completes = std::move(retry);
  }
}

std::vector<LeaseLoop::CommitOutcome> LeaseLoop::Commit(const v1::CompleteManyRequest& request, bool* call_failed) {
  std::vector<CommitOutcome> outcomes(request.units_size());
  if (!complete_one_by_one_) {
    v1::CompleteManyResponse response;
    const absl::Status status = client_->CompleteMany(request, &response, Deadline());
    if (status.ok() && response.outcomes_size() == request.units_size()) {
      for (int i = 0; i < request.units_size(); ++i) {
        v1::CompleteOutcome& outcome = *response.mutable_outcomes(i);
        outcomes[i].status = absl::Status(static_cast<absl::StatusCode>(outcome.code()), outcome.message());
        outcomes[i].response = std::move(*outcome.mutable_response());
      }
      return outcomes;
    }
    if (!absl::IsUnimplemented(status)) {
      *call_failed = true;
      for (CommitOutcome& outcome : outcomes) {
        outcome.status =
            status.ok() ? absl::InternalError("the coordinator answered CompleteMany for other units") : status;
      }
      return outcomes;
    }
    // A coordinator from before CompleteMany: one Complete per unit from now on.
    Log("the coordinator does not know CompleteMany; committing one unit per call");
    complete_one_by_one_ = true;
  }
  for (int i = 0; i < request.units_size(); ++i) {
    outcomes[i].status = client_->Complete(request.units(i), &outcomes[i].response, Deadline());
  }
  return outcomes;
}

void LeaseLoop::SendRelease(const v1::ReleaseRequest& request) {
  v1::ReleaseResponse response;
  absl::Status status = client_->Release(request, &response, Deadline());
  absl::MutexLock lock(&mu_);
  if (status.ok() && request.unit_id().empty()) ++stats_.units_released;  // not the note that a lost loop ended
}

}  // namespace noveltygrid
