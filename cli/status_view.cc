#include "cli/status_view.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/wire.h"

namespace noveltygrid::cli {
namespace {

Json WaitsJson(const v1::CallWaits& calls) {
  return Json{{"in_flight", calls.in_flight()}, {"retrying", calls.retrying()}, {"limited", calls.limited()},
              {"oldest_ms", calls.oldest_ms()}, {"stalled", calls.stalled()},   {"stalled_unit", calls.stalled_unit()}};
}

}  // namespace

ProgressFigures FiguresOf(const v1::StatusResponse& s) {
  ProgressFigures f;
  f.units_total = s.units_total();
  f.units_done = s.units_done();
  f.units_failed = s.units_failed();
  f.units_done_this_run = s.units_done_this_run();
  f.answers_this_run = s.answers_this_run();
  f.tokens = s.prompt_tokens() + s.completion_tokens();
  if (s.priced()) f.cost_usd = s.cost_usd();
  f.calls = FromProto(s.calls());
  f.elapsed = absl::Milliseconds(s.run_ms());
  return f;
}

std::string StatusText(const v1::StatusResponse& s) {
  std::string out =
      absl::StrFormat("sweep %s: %d/%d units done, %d leased, %d pending%s\n", s.sweep(), s.units_done(),
                      s.units_total(), s.units_leased(), s.units_pending(), s.complete() ? " (complete)" : "");
  const ProgressFigures f = FiguresOf(s);
  absl::StrAppend(&out, ProgressLine("progress", f, 0), "\n");
  absl::StrAppendFormat(&out, "answers %d; tokens %d prompt + %d completion%s\n", s.answers(), s.prompt_tokens(),
                        s.completion_tokens(),
                        s.priced() ? absl::StrFormat("; cost $%.4f", s.cost_usd()) : "; cost: no prices in the config");
  const std::string waiting = CallWaitsText(f.calls);
  absl::StrAppend(&out, waiting.empty() ? "calls: none waiting" : waiting, "\n\n");
  absl::StrAppendFormat(&out, "%-32s %8s %8s %8s %8s\n", "model", "done", "leased", "pending", "failed");
  for (const v1::ModelStatus& m : s.models()) {
    absl::StrAppendFormat(&out, "%-32s %8d %8d %8d %8d\n", m.model(), m.done(), m.leased(), m.pending(), m.failed());
  }
  absl::StrAppendFormat(&out, "\n%d worker(s) alive\n", s.workers_size());
  if (s.workers_size() > 0) {
    absl::StrAppendFormat(&out, "%-32s %8s %8s %10s %10s %9s %9s %9s %8s\n", "worker", "leases", "loops", "capacity",
                          "seen", "in-flight", "retrying", "limited", "oldest");
    for (const v1::WorkerStatus& w : s.workers()) {
      absl::StrAppendFormat(&out, "%-32s %8d %8d %10d %8dms %9d %9d %9d %8s%s\n", w.worker_id(), w.leases(),
                            w.loops_in_flight(), w.capacity(), w.last_seen_ms_ago(), w.calls().in_flight(),
                            w.calls().retrying(), w.calls().limited(),
                            ShortDuration(absl::Milliseconds(w.calls().oldest_ms())), w.draining() ? " draining" : "");
      if (w.calls().stalled() > 0) {
        absl::StrAppendFormat(&out, "  %d unit(s) stalled: %s\n", w.calls().stalled(), w.calls().stalled_unit());
      }
    }
  }
  return out;
}

Json StatusJson(const v1::StatusResponse& s) {
  Json j{{"sweep", s.sweep()},
         {"complete", s.complete()},
         {"units_total", s.units_total()},
         {"units_done", s.units_done()},
         {"units_leased", s.units_leased()},
         {"units_pending", s.units_pending()},
         {"units_failed", s.units_failed()},
         {"answers", s.answers()},
         {"prompt_tokens", s.prompt_tokens()},
         {"completion_tokens", s.completion_tokens()}};
  j["cost_usd"] = s.priced() ? Json(s.cost_usd()) : Json(nullptr);
  const ProgressFigures f = FiguresOf(s);
  const double seconds = absl::ToDoubleSeconds(f.elapsed);
  j["run"] = {{"seconds", seconds},
              {"units_done", s.units_done_this_run()},
              {"answers", s.answers_this_run()},
              {"units_per_second", seconds > 0 ? s.units_done_this_run() / seconds : 0.0},
              {"answers_per_second", seconds > 0 ? s.answers_this_run() / seconds : 0.0}};
  j["calls"] = WaitsJson(s.calls());
  j["models"] = Json::array();
  for (const v1::ModelStatus& m : s.models()) {
    j["models"].push_back({{"model", m.model()},
                           {"done", m.done()},
                           {"leased", m.leased()},
                           {"pending", m.pending()},
                           {"failed", m.failed()}});
  }
  j["workers"] = Json::array();
  for (const v1::WorkerStatus& w : s.workers()) {
    j["workers"].push_back({{"worker_id", w.worker_id()},
                            {"last_seen_ms_ago", w.last_seen_ms_ago()},
                            {"leases", w.leases()},
                            {"loops_in_flight", w.loops_in_flight()},
                            {"capacity", w.capacity()},
                            {"draining", w.draining()},
                            {"calls", WaitsJson(w.calls())}});
  }
  return j;
}

}  // namespace noveltygrid::cli
