// serve-sim's one-pass reading of chat completion requests (sim_server/chat_completion_json.h) against
// the nlohmann tree reading it falls back to, which it promises to match: for every body the same
// request, or the same error.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "sim_server/chat_completion_json.h"
#include "tests/fuzz/fuzz_util.h"

namespace noveltygrid {
namespace {

std::string Describe(const absl::StatusOr<ModelChatRequest>& parsed) {
  if (!parsed.ok()) return parsed.status().ToString();
  const ChatRequest& r = parsed->request;
  std::string out = absl::StrCat("model=", parsed->model, " t=", std::bit_cast<uint64_t>(r.temperature),
                                 " max=", r.max_tokens, " seed=", r.seed, " n=", r.n);
  for (const ChatMessage& m : r.messages) {
    absl::StrAppend(&out, " [", m.role.size(), ":", m.role, "|", m.content.size(), ":", m.content, "]");
  }
  return out;
}

}  // namespace
}  // namespace noveltygrid

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace noveltygrid;
  const std::string text(fuzz::AsText(data, size));
  const std::string fast = Describe(ParseChatCompletion(text));
  const std::string tree = Describe(ParseChatCompletionTree(text));
  FUZZ_CHECK(fast == tree, fast + " vs " + tree);
  return 0;
}
