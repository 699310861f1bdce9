// HttpClient against servers that misbehave on purpose (issue 14): a reply far larger than any model
// reply, with or without a Content-Length, and a reply that trickles and never ends. Each must end
// in a clear error with the memory it took bounded by the body limit.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/worker/http/test_http_server.h"
#include "worker/http/http_client.h"

namespace noveltygrid {
namespace {

using testing::CreateClient;
using testing::Get;
using ::testing::HasSubstr;
using testing::SendAndWait;
using testing::TestHttpServer;

constexpr uint64_t kHugeBody = uint64_t{100} << 20;  // 100 MB, streamed: never held by the server
constexpr size_t kChunk = 64 << 10;

std::unique_ptr<HttpClient> MakeClientWith(Executor* executor, size_t max_response_bytes, bool builtin_http1) {
  HttpClientOptions options;
  options.executor = executor;
  options.max_response_bytes = max_response_bytes;
  options.builtin_http1 = builtin_http1;
  return CreateClient(options);
}

// Every HostileReplyTest runs on both engines: the built-in HTTP/1.1 transport and curl.
class HostileReplyTest : public ::testing::TestWithParam<bool> {
 protected:
  std::unique_ptr<HttpClient> MakeClient(Executor* executor, size_t max_response_bytes = kDefaultMaxResponseBytes) {
    return MakeClientWith(executor, max_response_bytes, GetParam());
  }
};

// Serves `total` bytes of 'x' at `path` from one reused chunk, chunked (no Content-Length) or with its
// Content-Length; counts the bytes the server managed to write in `*sent`.
void ServeBytes(TestHttpServer& server, const std::string& path, uint64_t total, bool chunked,
                std::atomic<uint64_t>* sent) {
  auto chunk = std::make_shared<const std::string>(kChunk, 'x');
  auto write = [chunk, total, sent](size_t offset, httplib::DataSink& sink) {
    if (offset >= total) {
      sink.done();
      return true;
    }
    const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk->size(), total - offset));
    if (!sink.write(chunk->data(), n)) return false;  // the client hung up
    sent->fetch_add(n);
    return true;
  };
  server.server().Get(path, [=](const httplib::Request&, httplib::Response& res) {
    if (chunked) {
      res.set_chunked_content_provider("application/json", write);
    } else {
      res.set_content_provider(total, "application/json",
                               [write](size_t offset, size_t, httplib::DataSink& sink) { return write(offset, sink); });
    }
  });
}

// What a client with the default limit gets for 100 MB served chunked or with its Content-Length
// (GET `path_and_query`), and how many bytes the server wrote before it saw the client hang up.
struct HugeOutcome {
  absl::Status status;
  uint64_t sent = 0;
};
HugeOutcome FetchHuge(bool builtin_http1, bool chunked, const std::string& path_and_query) {
  std::atomic<uint64_t> sent{0};  // before the server, whose handlers write it
  TestHttpServer server;
  ServeBytes(server, "/huge", kHugeBody, chunked, &sent);
  server.Start();
  ThreadPool executor(2);
  auto client = MakeClientWith(&executor, kDefaultMaxResponseBytes, builtin_http1);
  absl::StatusOr<HttpResponse> r = SendAndWait(*client, Get(server.Url(path_and_query)));
  server.Stop();  // joins the handler: it stopped writing when the client hung up
  return {r.status(), sent.load()};
}

TEST_P(HostileReplyTest, AHundredMegabyteStreamedReplyIsCutOffAtTheLimit) {
  const HugeOutcome huge = FetchHuge(GetParam(), /*chunked=*/true, "/huge?key=secret");
  EXPECT_EQ(huge.status.code(), absl::StatusCode::kOutOfRange) << huge.status;
  EXPECT_THAT(huge.status.message(), HasSubstr("larger than the limit of 33554432 bytes"));
  EXPECT_THAT(huge.status.message(), HasSubstr("max_response_bytes"));
  EXPECT_THAT(huge.status.message(), ::testing::Not(HasSubstr("secret")));
  EXPECT_LT(huge.sent, kHugeBody);
}

TEST_P(HostileReplyTest, AHundredMegabyteContentLengthIsRefusedBeforeTheBody) {
  const HugeOutcome huge = FetchHuge(GetParam(), /*chunked=*/false, "/huge");
  EXPECT_EQ(huge.status.code(), absl::StatusCode::kOutOfRange) << huge.status;
  // What socket buffers took before the server saw the hang-up, far from the limit.
  EXPECT_LT(huge.sent, kDefaultMaxResponseBytes);
}

// The limit is exact whichever way the length is told, and a transfer cut off leaves nothing behind
// for the next request on the client.
TEST_P(HostileReplyTest, ABodyOfExactlyTheLimitArrivesAndOneByteMoreDoesNot) {
  constexpr size_t kLimit = 1000;
  std::atomic<uint64_t> sent{0};  // before the server, whose handlers write it
  TestHttpServer server;
  ServeBytes(server, "/exact", kLimit, /*chunked=*/false, &sent);
  ServeBytes(server, "/exact-chunked", kLimit, /*chunked=*/true, &sent);
  ServeBytes(server, "/over", kLimit + 1, /*chunked=*/false, &sent);
  ServeBytes(server, "/over-chunked", kLimit + 1, /*chunked=*/true, &sent);
  server.Start();
  ThreadPool executor(2);
  auto client = MakeClient(&executor, kLimit);
  for (const char* path : {"/over", "/exact", "/over-chunked", "/exact-chunked"}) {
    SCOPED_TRACE(path);
    absl::StatusOr<HttpResponse> r = SendAndWait(*client, Get(server.Url(path)));
    if (std::string(path).find("over") != std::string::npos) {
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange) << r.status();
      EXPECT_THAT(r.status().message(), HasSubstr("limit of 1000 bytes"));
    } else {
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_EQ(r->body, std::string(kLimit, 'x'));
    }
  }
}

// A reply that sends a byte now and then and never ends is ended by the request's timeout, which is
// for the whole transfer, not for a silence.
TEST_P(HostileReplyTest, AReplyThatTricklesForeverEndsAtTheTimeout) {
  std::atomic<bool> stop{false};
  TestHttpServer server;
  server.server().Get("/trickle", [&stop](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [&stop](size_t, httplib::DataSink& sink) {
      if (stop.load()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the trickle being simulated
      return sink.write("x", 1);
    });
  });
  server.Start();
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  HttpRequest request = Get(server.Url("/trickle"));
  request.timeout = absl::Milliseconds(300);
  absl::StatusOr<HttpResponse> r = SendAndWait(*client, request);
  stop.store(true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded) << r.status();
  EXPECT_EQ(client->Stats().in_flight, 0);
}

INSTANTIATE_TEST_SUITE_P(Engines, HostileReplyTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "builtin" : "curl"; });

}  // namespace
}  // namespace noveltygrid
