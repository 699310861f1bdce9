// ScriptedChannel: a ProviderChannel that records every request for the test to answer by hand.
#ifndef NOVELTYGRID_TESTS_WORKER_MODELS_SCRIPTED_CHANNEL_H_
#define NOVELTYGRID_TESTS_WORKER_MODELS_SCRIPTED_CHANNEL_H_

#include <string>
#include <utility>
#include <vector>

#include "common/json_util.h"
#include "common/provider_config.h"
#include "worker/http/provider_channel.h"

namespace noveltygrid::modeltest {

// Records every PostJson; the test answers them.
class ScriptedChannel : public ProviderChannel {
 public:
  struct Call {
    std::string path;
    Json body;
    JsonCallback done;
  };
  const ProviderConfig& config() const override { return config_; }
  void PostJson(const std::string& path, Json body, JsonCallback done) override {
    calls.push_back({path, std::move(body), std::move(done)});
  }
  ProviderChannelStats Stats() const override { return {}; }
  std::vector<Call> calls;

 private:
  ProviderConfig config_;
};

}  // namespace noveltygrid::modeltest

#endif  // NOVELTYGRID_TESTS_WORKER_MODELS_SCRIPTED_CHANNEL_H_
