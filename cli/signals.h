// Termination signals, handled in one thread: BlockTerminationSignals() in main before any thread
// starts (gRPC's included), then a SignalWatcher turns SIGTERM/SIGINT into a callback (drain, stop).
#ifndef NOVELTYGRID_CLI_SIGNALS_H_
#define NOVELTYGRID_CLI_SIGNALS_H_

#include <functional>
#include <thread>

namespace noveltygrid::cli {

// Blocks SIGTERM, SIGINT and SIGUSR2 in the calling thread; threads started afterwards inherit it.
void BlockTerminationSignals();

class SignalWatcher {
 public:
  // `on_signal` runs on the watcher's thread for every SIGTERM or SIGINT.
  explicit SignalWatcher(std::function<void(int signal)> on_signal);
  ~SignalWatcher();

 private:
  std::function<void(int)> on_signal_;
  std::thread thread_;
};

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_SIGNALS_H_
