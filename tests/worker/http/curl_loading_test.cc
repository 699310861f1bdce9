// libcurl is loaded on first use (worker/http/curl_api.h): a process whose requests all go over the
// built-in HTTP/1.1 transport never maps it, and the first request only curl can carry loads it.
// Each case runs in a fresh process (a "threadsafe" death test re-executes the test binary), since
// any earlier curl request of this binary would have loaded the library for good.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/worker/http/test_http_server.h"
#include "worker/http/http_client.h"

namespace noveltygrid {
namespace {

using testing::Get;
using testing::SendAndWait;
using testing::TestHttpServer;

bool CurlLoaded() {
  void* lib = ::dlopen("libcurl.so.4", RTLD_LAZY | RTLD_NOLOAD);
  if (lib == nullptr) return false;
  ::dlclose(lib);  // drops only the reference NOLOAD took
  return true;
}

// Exits with `code` after saying why, for the parent's assertion message.
[[noreturn]] void ExitWith(int code, const std::string& why) {
  std::fprintf(stderr, "%s\n", why.c_str());
  std::fflush(stderr);
  std::_Exit(code);
}

void BuiltinRequestsThenACurlOne() {
  if (CurlLoaded()) ExitWith(2, "libcurl was loaded at start-up");
  TestHttpServer server;
  server.server().Get("/hello",
                      [](const httplib::Request&, httplib::Response& res) { res.set_content("hi", "text/plain"); });
  server.Start();
  ThreadPool executor(2);
  HttpClientOptions options;
  options.executor = &executor;
  absl::StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Create(options);
  if (!client.ok()) ExitWith(3, client.status().ToString());
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<HttpResponse> reply = SendAndWait(**client, Get(server.Url("/hello")));
    if (!reply.ok() || reply->body != "hi") ExitWith(4, "the built-in transport's request failed");
  }
  if (CurlLoaded()) ExitWith(5, "libcurl was loaded by requests the built-in transport carries");
  // A host name, not an address: curl's.
  absl::StatusOr<HttpResponse> by_name =
      SendAndWait(**client, Get(absl::StrCat("http://localhost:", server.port(), "/hello")));
  if (!by_name.ok()) ExitWith(6, by_name.status().ToString());
  if (by_name->body != "hi") ExitWith(7, "curl's reply: " + by_name->body);
  if (!CurlLoaded()) ExitWith(8, "a request curl carried did not load libcurl");
  client->reset();
  ExitWith(0, "ok");
}

TEST(CurlLoadingTest, OnlyTheFirstRequestCurlCarriesLoadsLibcurl) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(BuiltinRequestsThenACurlOne(), ::testing::ExitedWithCode(0), "ok");
}

void CurlForEverything() {
  HttpClientOptions options;
  ThreadPool executor(1);
  options.executor = &executor;
  options.builtin_http1 = false;
  absl::StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Create(options);
  if (!client.ok()) ExitWith(3, client.status().ToString());
  if (!CurlLoaded()) ExitWith(4, "a client that sends everything through curl started without it");
  client->reset();
  ExitWith(0, "ok");
}

TEST(CurlLoadingTest, AClientWithoutTheBuiltinTransportLoadsLibcurlWhenCreated) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(CurlForEverything(), ::testing::ExitedWithCode(0), "ok");
}

}  // namespace
}  // namespace noveltygrid
