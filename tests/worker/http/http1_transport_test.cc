// The built-in HTTP/1.1 transport (worker/http/http1_transport.h) through HttpClient with
// builtin_http1 on, against real loopback servers: a raw TCP server (raw_test_server.h) where the
// reply has to be scripted byte by byte (closing a kept-alive connection, answering nothing, tiny
// writes), and the simulated model server for load. No sleeps: the servers block on accept and read,
// the tests wait on notifications.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim_server/sim_server.h"
#include "tests/worker/http/raw_test_server.h"
#include "tests/worker/http/test_http_server.h"
#include "worker/http/http_client.h"

namespace noveltygrid {
namespace {

using testing::CreateClient;
using testing::EchoHandler;
using testing::Get;
using ::testing::HasSubstr;
using testing::HeaderValue;
using ::testing::Not;
using testing::RawConn;
using testing::RawServer;
using testing::Reply;
using testing::RequestLine;
using testing::SendAndWait;

std::unique_ptr<HttpClient> MakeClient(Executor* executor, int per_host = 64) {
  HttpClientOptions options;
  options.executor = executor;
  options.builtin_http1 = true;
  options.max_connections_per_host = per_host;
  options.max_total_connections = std::max(per_host, 512);
  return CreateClient(options);
}

// Sets (or unsets, with nullptr) an environment variable for the scope; restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name); old != nullptr) old_ = old;
    if (value == nullptr) {
      ::unsetenv(name);
    } else {
      ::setenv(name, value, 1);
    }
  }
  ~ScopedEnv() {
    if (old_.has_value()) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// The built-in engine must be the one these tests exercise: whatever the environment says.
class Http1TransportTest : public ::testing::Test {
 protected:
  ScopedEnv engine_{"NOVELTYGRID_HTTP1", nullptr};
};

// (a) The server closes a kept-alive connection after its first reply without having said so, and
// only after reading the second request: the second request, to which no byte of a reply came, is
// sent once more on a fresh connection and succeeds.
TEST_F(Http1TransportTest, KeptAliveConnectionClosedUnderARequestIsResentOnce) {
  RawServer server([](RawConn& conn) {
    if (conn.index() == 0) {
      if (!conn.ReadRequest() || !conn.Write(Reply("first"))) return;
      conn.ReadRequest();  // the second request arrives here -- and the connection closes under it
      return;
    }
    while (std::optional<std::string> request = conn.ReadRequest()) {
      if (!conn.Write(Reply("second"))) return;
    }
  });
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  absl::StatusOr<HttpResponse> first = SendAndWait(*client, Get(server.Url("/1")));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->body, "first");
  absl::StatusOr<HttpResponse> second = SendAndWait(*client, Get(server.Url("/2")));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->status, 200);
  EXPECT_EQ(second->body, "second");
  EXPECT_EQ(client->Stats().connections_opened, 2);
  EXPECT_EQ(client->Stats().transport_errors, 0);
  client.reset();
  server.Stop();
  EXPECT_EQ(server.accepted(), 2);
  EXPECT_THAT(server.request_lines(), ::testing::ElementsAre("GET /1 HTTP/1.1", "GET /2 HTTP/1.1", "GET /2 HTTP/1.1"));
}

// (a) The same, the server closing right after its reply: whether the client notices the close
// before reusing the connection or only when the request fails on it, the second request succeeds.
TEST_F(Http1TransportTest, ServerClosingAfterItsReplyDoesNotFailTheNextRequest) {
  RawServer server([](RawConn& conn) {
    if (std::optional<std::string> request = conn.ReadRequest()) {
      conn.Write(Reply(absl::StrCat("reply on connection ", conn.index())));
    }
  });
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  absl::StatusOr<HttpResponse> first = SendAndWait(*client, Get(server.Url("/1")));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->body, "reply on connection 0");
  absl::StatusOr<HttpResponse> second = SendAndWait(*client, Get(server.Url("/2")));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->body, "reply on connection 1");
  EXPECT_EQ(client->Stats().connections_opened, 2);
  client.reset();
  server.Stop();
  EXPECT_EQ(server.accepted(), 2);
}

// (b) A fresh connection the server closes without replying: Unavailable, not sent again.
TEST_F(Http1TransportTest, FreshConnectionClosedWithoutAReplyIsUnavailable) {
  RawServer server([](RawConn& conn) { conn.ReadRequest(); });
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  absl::StatusOr<HttpResponse> r = SendAndWait(*client, Get(server.Url("/x?key=secret")));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable) << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr("without replying"));
  EXPECT_THAT(r.status().message(), Not(HasSubstr("secret")));
  EXPECT_EQ(client->Stats().connections_opened, 1);
  EXPECT_EQ(client->Stats().transport_errors, 1);
  client.reset();
  server.Stop();
  EXPECT_EQ(server.accepted(), 1);
  EXPECT_EQ(server.requests().size(), 1u);
}

// (b) A request resent after a closed kept-alive connection whose fresh connection closes too: it
// fails then, after exactly one resend.
TEST_F(Http1TransportTest, AResentRequestIsNotResentAgain) {
  RawServer server([](RawConn& conn) {
    if (conn.index() == 0) {
      if (!conn.ReadRequest() || !conn.Write(Reply("first"))) return;
    }
    conn.ReadRequest();  // and close without a reply
  });
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  absl::StatusOr<HttpResponse> first = SendAndWait(*client, Get(server.Url("/1")));
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<HttpResponse> second = SendAndWait(*client, Get(server.Url("/2")));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable) << second.status();
  EXPECT_EQ(client->Stats().connections_opened, 2);
  client.reset();
  server.Stop();
  EXPECT_EQ(server.accepted(), 2);
  EXPECT_THAT(server.request_lines(), ::testing::ElementsAre("GET /1 HTTP/1.1", "GET /2 HTTP/1.1", "GET /2 HTTP/1.1"));
}

// (c) A chunked reply written a few bytes per send arrives whole, and the connection carries the
// next request.
TEST_F(Http1TransportTest, ChunkedReplyInManySmallWritesArrivesWhole) {
  std::string body;
  for (int i = 0; i < 300; ++i) body += static_cast<char>('a' + i % 26);
  RawServer server([&body](RawConn& conn) {
    while (std::optional<std::string> request = conn.ReadRequest()) {
      std::string reply = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n";
      for (size_t i = 0; i < body.size(); i += 7) {
        const std::string piece = body.substr(i, 7);
        absl::StrAppend(&reply, absl::Hex(piece.size()), ";n=", i, "\r\n", piece, "\r\n");
      }
      reply += "0\r\nX-Trailer: done\r\n\r\n";
      for (size_t i = 0; i < reply.size(); i += 1 + i % 3) {  // 1, 2 or 3 bytes a send
        if (!conn.Write(absl::string_view(reply).substr(i, 1 + i % 3))) return;
      }
    }
  });
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<HttpResponse> r = SendAndWait(*client, Get(server.Url("/chunks")));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, body);
    EXPECT_EQ(r->content_type, "text/plain");
  }
  EXPECT_EQ(client->Stats().connections_opened, 1);
}

// (d) A reply saying "Connection: close": the client closes the connection (the server sees it
// close) and the next request opens a new one.
TEST_F(Http1TransportTest, ConnectionCloseReplyMakesTheNextRequestOpenANewConnection) {
  absl::Notification first_closed_by_client;
  RawServer server([&first_closed_by_client](RawConn& conn) {
    if (!conn.ReadRequest()) return;
    if (!conn.Write(Reply(absl::StrCat("connection ", conn.index()), "Connection: close\r\n"))) return;
    conn.WaitForClose();  // the server does not close: the client must
    if (conn.index() == 0) first_closed_by_client.Notify();
  });
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  absl::StatusOr<HttpResponse> first = SendAndWait(*client, Get(server.Url("/1")));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->body, "connection 0");
  absl::StatusOr<HttpResponse> second = SendAndWait(*client, Get(server.Url("/2")));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->body, "connection 1");
  EXPECT_EQ(client->Stats().connections_opened, 2);
  EXPECT_EQ(server.accepted(), 2);
  // The client closed the first connection itself (the bound only keeps a broken client from hanging
  // the test; nothing waits on time).
  EXPECT_TRUE(first_closed_by_client.WaitForNotificationWithTimeout(absl::Seconds(30)));
}

// A reply without a body (204, or Content-Length: 0) leaves a connection that carries the next
// request.
TEST_F(Http1TransportTest, RepliesWithoutABodyKeepTheConnection) {
  RawServer server([](RawConn& conn) {
    while (std::optional<std::string> request = conn.ReadRequest()) {
      const bool empty = absl::StrContains(RequestLine(*request), "/empty");
      if (!conn.Write(empty ? "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" : "HTTP/1.1 204 No Content\r\n\r\n")) {
        return;
      }
    }
  });
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  for (const char* path : {"/204", "/204", "/empty", "/empty"}) {
    absl::StatusOr<HttpResponse> r = SendAndWait(*client, Get(server.Url(path)));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->status, absl::StrContains(path, "204") ? 204 : 200);
    EXPECT_EQ(r->body, "");
  }
  EXPECT_EQ(client->Stats().connections_opened, 1);
  client.reset();
  server.Stop();
  EXPECT_EQ(server.accepted(), 1);
}

// (e) Two connections at most to a slow server: ten concurrent requests all succeed, queued behind
// the cap.
TEST_F(Http1TransportTest, PerHostCapQueuesRequestsAndAllSucceed) {
  SimServer sim;
  absl::StatusOr<int> port = sim.Start({.latency_ms = 30, .threads = 4});
  ASSERT_TRUE(port.ok()) << port.status();
  ThreadPool executor(2);
  auto client = MakeClient(&executor, /*per_host=*/2);
  constexpr int kRequests = 10;
  absl::BlockingCounter done(kRequests);
  std::atomic<int> ok{0};
  absl::Mutex mu;
  std::vector<std::string> failures;
  for (int i = 0; i < kRequests; ++i) {
    HttpRequest request;
    request.url = absl::StrCat("http://127.0.0.1:", *port, "/v1/chat/completions");
    request.body =
        R"({"model":"sim:explorer","messages":[{"role":"user","content":"Name one use for a brick."}],"seed":1})";
    request.headers = {"Content-Type: application/json"};
    client->Send(std::move(request), [&](absl::StatusOr<HttpResponse> r) {
      if (r.ok() && r->status == 200) {
        ok.fetch_add(1);
      } else {
        absl::MutexLock lock(&mu);
        failures.push_back(r.ok() ? absl::StrCat(r->status, " ", r->body) : r.status().ToString());
      }
      done.DecrementCount();
    });
  }
  done.Wait();
  EXPECT_EQ(ok.load(), kRequests) << ::testing::PrintToString(failures);
  EXPECT_GE(client->Stats().connections_opened, 1);
  EXPECT_LE(client->Stats().connections_opened, 2);
  EXPECT_EQ(client->Stats().in_flight, 0);
}

// (f) One connection per host, held by a server that does not answer: a second request waiting in
// the host's queue fails at its own (short) timeout without ever being sent, the first one ends at
// its timeout, and the connection the first one leaves frees the host for a third.
TEST_F(Http1TransportTest, RequestQueuedPastItsTimeoutIsDeadlineExceeded) {
  absl::Notification first_arrived;
  RawServer server([&first_arrived](RawConn& conn) {
    if (conn.index() == 0) {
      if (!conn.ReadRequest()) return;
      first_arrived.Notify();
      conn.WaitForClose();  // never answers
      return;
    }
    while (std::optional<std::string> request = conn.ReadRequest()) {
      if (!conn.Write(Reply(RequestLine(*request)))) return;
    }
  });
  ThreadPool executor(2);
  auto client = MakeClient(&executor, /*per_host=*/1);

  absl::Notification first_done;
  absl::StatusOr<HttpResponse> first_result;
  HttpRequest first = Get(server.Url("/first"));
  first.timeout = absl::Seconds(2);
  client->Send(std::move(first), [&](absl::StatusOr<HttpResponse> r) {
    first_result = std::move(r);
    first_done.Notify();
  });
  first_arrived.WaitForNotification();

  HttpRequest second = Get(server.Url("/second"));
  second.timeout = absl::Milliseconds(100);
  absl::StatusOr<HttpResponse> second_result = SendAndWait(*client, second);
  ASSERT_FALSE(second_result.ok());
  EXPECT_EQ(second_result.status().code(), absl::StatusCode::kDeadlineExceeded) << second_result.status();

  first_done.WaitForNotification();
  ASSERT_FALSE(first_result.ok());
  EXPECT_EQ(first_result.status().code(), absl::StatusCode::kDeadlineExceeded) << first_result.status();

  absl::StatusOr<HttpResponse> third = SendAndWait(*client, Get(server.Url("/third")));
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_EQ(third->body, "GET /third HTTP/1.1");
  EXPECT_EQ(client->Stats().connections_opened, 2);
  EXPECT_EQ(client->Stats().in_flight, 0);
  client.reset();
  server.Stop();
  // The second request never reached the server.
  EXPECT_THAT(server.request_lines(), ::testing::ElementsAre("GET /first HTTP/1.1", "GET /third HTTP/1.1"));
}

// (g) A header with a line break in it would smuggle a header (or a request) in: refused before
// anything is sent.
TEST_F(Http1TransportTest, HeaderWithALineBreakIsInvalidArgumentAndNothingIsSent) {
  RawServer server(EchoHandler);
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  for (const char* header : {"X-Evil: a\r\nInjected: secret", "X-Evil: a\nInjected: secret",
                             "X-Evil: a\rInjected: secret", "X-Evil: secret\r\n\r\nGET /smuggled HTTP/1.1"}) {
    SCOPED_TRACE(absl::CEscape(header));
    HttpRequest request = Get(server.Url("/x"));
    request.headers = {"Authorization: Bearer k", header};
    absl::StatusOr<HttpResponse> r = SendAndWait(*client, request);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
    EXPECT_THAT(r.status().message(), Not(HasSubstr("secret")));  // headers carry keys: never in errors
  }
  EXPECT_EQ(client->Stats().connections_opened, 0);
  // A good request afterwards is the first thing the server sees.
  absl::StatusOr<HttpResponse> good = SendAndWait(*client, Get(server.Url("/good")));
  ASSERT_TRUE(good.ok()) << good.status();
  client.reset();
  server.Stop();
  EXPECT_EQ(server.accepted(), 1);
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(RequestLine(server.requests()[0]), "GET /good HTTP/1.1");
  EXPECT_THAT(server.requests()[0], Not(HasSubstr("Injected")));
}

// (h) An engine name the client does not know is a configuration error, not a silent default.
TEST_F(Http1TransportTest, UnknownEngineInTheEnvironmentFailsCreate) {
  ThreadPool executor(2);
  HttpClientOptions options;
  options.executor = &executor;
  {
    ScopedEnv bogus("NOVELTYGRID_HTTP1", "bogus");
    absl::StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Create(options);
    ASSERT_FALSE(client.ok());
    EXPECT_EQ(client.status().code(), absl::StatusCode::kInvalidArgument) << client.status();
    EXPECT_THAT(client.status().message(), HasSubstr("NOVELTYGRID_HTTP1"));
    EXPECT_THAT(client.status().message(), HasSubstr("bogus"));
  }
  for (const char* engine : {"curl", "builtin", ""}) {
    SCOPED_TRACE(engine);
    ScopedEnv known("NOVELTYGRID_HTTP1", engine);
    absl::StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Create(options);
    EXPECT_TRUE(client.ok()) << client.status();
  }
  EXPECT_EQ(std::getenv("NOVELTYGRID_HTTP1"), nullptr);  // restored (the fixture unset it)
}

// (i) An IP address goes over the built-in transport; localhost (curl tries ::1 and 127.0.0.1), a URL
// with userinfo, another host name, or https goes to curl (which shows: it sends the userinfo as Basic
// authorization, resolves the name, speaks TLS).
TEST_F(Http1TransportTest, WhatTheBuiltInTransportDoesNotTakeGoesToCurl) {
  std::atomic<int> tls_hellos{0};
  RawServer server([&tls_hellos](RawConn& conn) {
    if (conn.PeekByte() == 0x16) {  // a TLS handshake record: https://
      tls_hellos.fetch_add(1);
      return;
    }
    while (std::optional<std::string> request = conn.ReadRequest()) {
      const std::string body = absl::StrCat(RequestLine(*request), "|", HeaderValue(*request, "host"), "|",
                                            HeaderValue(*request, "authorization"));
      if (!conn.Write(Reply(body))) return;
    }
  });
  const std::string port = std::to_string(server.port());
  ThreadPool executor(2);
  auto client = MakeClient(&executor);

  absl::StatusOr<HttpResponse> ip = SendAndWait(*client, Get("http://127.0.0.1:" + port + "/ip"));
  ASSERT_TRUE(ip.ok()) << ip.status();
  EXPECT_EQ(ip->body, "GET /ip HTTP/1.1|127.0.0.1:" + port + "|");
  absl::StatusOr<HttpResponse> local = SendAndWait(*client, Get("http://localhost:" + port + "/local"));
  ASSERT_TRUE(local.ok()) << local.status();
  EXPECT_EQ(local->body, "GET /local HTTP/1.1|localhost:" + port + "|");
  absl::StatusOr<HttpResponse> local_upper = SendAndWait(*client, Get("http://LocalHost:" + port + "/upper"));
  ASSERT_TRUE(local_upper.ok()) << local_upper.status();
  EXPECT_THAT(local_upper->body, HasSubstr("GET /upper HTTP/1.1|"));

  absl::StatusOr<HttpResponse> userinfo = SendAndWait(*client, Get("http://user:pw@127.0.0.1:" + port + "/auth"));
  ASSERT_TRUE(userinfo.ok()) << userinfo.status();
  EXPECT_EQ(userinfo->body, "GET /auth HTTP/1.1|127.0.0.1:" + port + "|Basic dXNlcjpwdw==");  // base64 user:pw

  HttpRequest named = Get("http://localhost.invalid:" + port + "/named");
  named.timeout = absl::Seconds(10);
  absl::StatusOr<HttpResponse> unresolved = SendAndWait(*client, named);
  ASSERT_FALSE(unresolved.ok());  // the built-in transport would have gone to 127.0.0.1 and succeeded
  EXPECT_EQ(unresolved.status().code(), absl::StatusCode::kUnavailable) << unresolved.status();

  HttpRequest tls = Get("https://127.0.0.1:" + port + "/tls");
  tls.timeout = absl::Seconds(10);
  absl::StatusOr<HttpResponse> https = SendAndWait(*client, tls);
  EXPECT_FALSE(https.ok());
  client.reset();
  server.Stop();
  EXPECT_EQ(tls_hellos.load(), 1);
  for (const std::string& line : server.request_lines()) EXPECT_THAT(line, Not(HasSubstr("/named")));
}

// (j) The request as sent: Host is the URL's authority, the target keeps the query string and drops
// the fragment, an empty path is "/", "Name:" headers are left out, a POST body goes with its length.
TEST_F(Http1TransportTest, RequestLineHostAndBodyAreWhatTheUrlSays) {
  RawServer server(EchoHandler);
  const std::string authority = absl::StrCat("127.0.0.1:", server.port());
  ThreadPool executor(2);
  auto client = MakeClient(&executor);
  struct Expect {
    std::string url;
    std::string line;
  };
  for (const Expect& e : std::vector<Expect>{
           {"http://" + authority + "/v1/models?limit=5&after=a%20b#fragment", "GET /v1/models?limit=5&after=a%20b"},
           {"http://" + authority, "GET /"},
           {"http://" + authority + "?x=1", "GET /?x=1"},
           {"http://" + authority + "/a/b/", "GET /a/b/"},
       }) {
    SCOPED_TRACE(e.url);
    absl::StatusOr<HttpResponse> r = SendAndWait(*client, Get(e.url));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->body, absl::StrCat(e.line, " HTTP/1.1|", authority));
  }

  HttpRequest post;
  post.url = "http://" + authority + "/v1/chat/completions?api-version=2";
  post.body = std::string(100000, 'p');  // more than one send's worth on some kernels
  post.headers = {"Content-Type: application/json", "X-Left-Out:", "X-Kept: yes"};
  absl::StatusOr<HttpResponse> r = SendAndWait(*client, post);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->body, absl::StrCat("POST /v1/chat/completions?api-version=2 HTTP/1.1|", authority));
  client.reset();
  server.Stop();
  const std::vector<std::string> requests = server.requests();
  ASSERT_EQ(requests.size(), 5u);
  const std::string& sent = requests.back();
  EXPECT_EQ(HeaderValue(sent, "content-length"), "100000");
  EXPECT_EQ(HeaderValue(sent, "x-kept"), "yes");
  EXPECT_EQ(HeaderValue(sent, "content-type"), "application/json");
  EXPECT_EQ(HeaderValue(sent, "user-agent"), "noveltygrid");
  EXPECT_THAT(sent, Not(HasSubstr("X-Left-Out")));
  EXPECT_EQ(sent.substr(sent.find("\r\n\r\n") + 4), post.body);
  EXPECT_EQ(HeaderValue(requests[0], "content-length"), "");  // a GET carries no body
}

}  // namespace
}  // namespace noveltygrid
