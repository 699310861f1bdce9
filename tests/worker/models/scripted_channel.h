// ScriptedChannel: a ProviderChannel that records every request for the test to answer by hand.
#ifndef NOVELTYGRID_TESTS_WORKER_MODELS_SCRIPTED_CHANNEL_H_
#define NOVELTYGRID_TESTS_WORKER_MODELS_SCRIPTED_CHANNEL_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
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

// An OpenAI-compatible endpoint for the tests: embedding batches of 4, coalesced for up to 5 ms.
inline ModelEndpoint TestEndpoint(const std::string& max_tokens_field = "max_tokens") {
  ModelEndpoint e;
  e.name = "local:big";
  e.remote_model = "org/big-model";
  e.provider.name = "local";
  e.provider.base_url = "http://127.0.0.1:1/v1";
  e.provider.max_tokens_field = max_tokens_field;
  e.provider.embed_batch = 4;
  e.provider.embed_wait = absl::Milliseconds(5);
  e.extra_body_json = R"({"top_p":0.5})";
  return e;
}

}  // namespace noveltygrid::modeltest

#endif  // NOVELTYGRID_TESTS_WORKER_MODELS_SCRIPTED_CHANNEL_H_
