// libcurl is loaded on first use (worker/http/curl_api.h): a process whose requests all go over the
// built-in HTTP/1.1 transport never maps it, and the first request only curl can carry loads it.
// Each case runs in a fresh process (a "threadsafe" death test re-executes the test binary), since
// any earlier curl request of this binary would have loaded the library for good.
#include <dlfcn.h>
#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

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

// What would send every request through curl (http_client.h): not for these children.
void ClearCurlSettings() {
  for (const char* name : {"NOVELTYGRID_HTTP1", "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                           "ALL_PROXY", "no_proxy", "NO_PROXY", "socks_proxy", "SOCKS_PROXY"}) {
    ::unsetenv(name);
  }
}

// A client on `executor` (the built-in transport on unless `builtin_http1` is false), or the child ends.
std::unique_ptr<HttpClient> ClientOrExit(Executor* executor, bool builtin_http1 = true) {
  HttpClientOptions options;
  options.executor = executor;
  options.builtin_http1 = builtin_http1;
  absl::StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Create(options);
  if (!client.ok()) ExitWith(3, client.status().ToString());
  return *std::move(client);
}

void BuiltinRequestsThenACurlOne() {
  ClearCurlSettings();
  if (CurlLoaded()) ExitWith(2, "libcurl was loaded at start-up");
  TestHttpServer server;
  server.server().Get("/hello",
                      [](const httplib::Request&, httplib::Response& res) { res.set_content("hi", "text/plain"); });
  server.Start();
  ThreadPool executor(2);
  std::unique_ptr<HttpClient> client = ClientOrExit(&executor);
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<HttpResponse> reply = SendAndWait(*client, Get(server.Url("/hello")));
    if (!reply.ok() || reply->body != "hi") ExitWith(4, "the built-in transport's request failed");
  }
  if (absl::Status ok = client->CheckUrl(server.Url("/v1")); !ok.ok()) ExitWith(9, ok.ToString());
  if (CurlLoaded()) ExitWith(5, "libcurl was loaded by requests the built-in transport carries");
  // A host name, not an address: curl's.
  absl::StatusOr<HttpResponse> by_name =
      SendAndWait(*client, Get(absl::StrCat("http://localhost:", server.port(), "/hello")));
  if (!by_name.ok()) ExitWith(6, by_name.status().ToString());
  if (by_name->body != "hi") ExitWith(7, "curl's reply: " + by_name->body);
  if (!CurlLoaded()) ExitWith(8, "a request curl carried did not load libcurl");
  client.reset();
  ExitWith(0, "ok");
}

TEST(CurlLoadingTest, OnlyTheFirstRequestCurlCarriesLoadsLibcurl) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(BuiltinRequestsThenACurlOne(), ::testing::ExitedWithCode(0), "ok");
}

void CurlForEverything() {
  ClearCurlSettings();
  ThreadPool executor(1);
  std::unique_ptr<HttpClient> client = ClientOrExit(&executor, /*builtin_http1=*/false);
  if (!CurlLoaded()) ExitWith(4, "a client that sends everything through curl started without it");
  client.reset();
  ExitWith(0, "ok");
}

// A provider whose URL needs curl is checked when its channel is made (ProviderHub::Channel).
void CheckingAnHttpsUrl() {
  ClearCurlSettings();
  ThreadPool executor(1);
  std::unique_ptr<HttpClient> client = ClientOrExit(&executor);
  if (CurlLoaded()) ExitWith(4, "libcurl was loaded before an https:// URL was checked");
  if (absl::Status ok = client->CheckUrl("https://api.example.com/v1"); !ok.ok()) ExitWith(5, ok.ToString());
  if (!CurlLoaded()) ExitWith(6, "checking an https:// URL did not load libcurl");
  client.reset();
  ExitWith(0, "ok");
}

TEST(CurlLoadingTest, CheckingAUrlCurlCarriesLoadsLibcurl) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(CheckingAnHttpsUrl(), ::testing::ExitedWithCode(0), "ok");
}

TEST(CurlLoadingTest, AClientWithoutTheBuiltinTransportLoadsLibcurlWhenCreated) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(CurlForEverything(), ::testing::ExitedWithCode(0), "ok");
}

}  // namespace
}  // namespace noveltygrid
