// EpollHttpServer over loopback with raw sockets: framing, keep-alive, pipelining, protocol errors,
// partial writes, timers and Stop.
#include "sim_server/epoll_http_server.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "tests/sim_server/raw_http_client.h"

namespace noveltygrid::sim_http {
namespace {

using ::noveltygrid::testing::RawHttpConnection;
using ::noveltygrid::testing::RawResponse;

// Echoes "METHOD PATH BODY"; "/big/N" answers N bytes; "/wait/MS" answers after MS ms ("stopped" when
// the server stops first). Counts the replies made and the ones dropped unmade.
class EchoServer {
 public:
  explicit EchoServer(int loops = 1) {
    server_ = std::make_unique<EpollHttpServer>([this](HttpRequest& request) { return Handle(request); },
                                                [](int status, absl::string_view message) {
                                                  HttpResponse response;
                                                  response.status = status;
                                                  response.body = absl::StrCat("error: ", message);
                                                  return response;
                                                });
    EpollHttpServerOptions options;
    options.loops = loops;
    options.limits.max_header_bytes = 1024;
    options.limits.max_body_bytes = 1 << 20;
    absl::StatusOr<int> port = server_->Start(options);
    EXPECT_TRUE(port.ok()) << port.status();
    port_ = port.value_or(0);
  }

  int port() const { return port_; }
  EpollHttpServer& server() { return *server_; }
  int waiting() const { return waiting_.load(); }
  int dropped() const { return dropped_.load(); }

 private:
  struct Token {
    std::atomic<int>* dropped;
    bool used = false;
    Token(std::atomic<int>* d) : dropped(d) {}
    Token(Token&& other) noexcept : dropped(other.dropped), used(other.used) { other.used = true; }
    ~Token() {
      if (!used) ++*dropped;
    }
  };

  HttpReply Handle(HttpRequest& request) {
    HttpReply reply;
    int n = 0;
    if (absl::StartsWith(request.path, "/big/") && absl::SimpleAtoi(request.path.substr(5), &n)) {
      reply.respond = [n](bool) {
        HttpResponse response;
        response.body.resize(n);
        for (int i = 0; i < n; ++i) response.body[i] = static_cast<char>('a' + i % 26);
        return response;
      };
    } else if (absl::StartsWith(request.path, "/wait/") && absl::SimpleAtoi(request.path.substr(6), &n)) {
      ++waiting_;
      reply.delay = absl::Milliseconds(n);
      reply.respond = [token = Token(&dropped_)](bool stopping) mutable {
        token.used = true;
        HttpResponse response;
        response.body = stopping ? "stopped" : "waited";
        return response;
      };
    } else {
      std::string echo = absl::StrCat(request.method, " ", request.path, " ", request.body);
      reply.respond = [echo](bool) {
        HttpResponse response;
        response.content_type = "text/plain";
        response.headers = {{"X-Extra", "1"}};
        response.body = echo;
        return response;
      };
    }
    return reply;
  }

  std::unique_ptr<EpollHttpServer> server_;
  int port_ = 0;
  std::atomic<int> waiting_{0};
  std::atomic<int> dropped_{0};
};

TEST(EpollHttpServer, KeepAliveRequestsOnOneConnection) {
  EchoServer echo;
  RawHttpConnection c(echo.port());
  ASSERT_TRUE(c.connected());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.Send("POST /x HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi"));
    RawResponse r = c.Read();
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "POST /x hi");
    EXPECT_TRUE(r.HasHeader("Content-Type: text/plain\r\n"));
    EXPECT_TRUE(r.HasHeader("Content-Length: 10\r\n"));
    EXPECT_TRUE(r.HasHeader("X-Extra: 1\r\n"));
    EXPECT_FALSE(r.HasHeader("Connection:"));
  }
}

TEST(EpollHttpServer, PipelinedAndSplitRequestsAreAnsweredInOrder) {
  EchoServer echo;
  RawHttpConnection c(echo.port());
  const std::string wire =
      "POST /a HTTP/1.1\r\nContent-Length: 1\r\n\r\n1GET /wait/5 HTTP/1.1\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: "
      "3\r\n\r\n333";
  for (char byte : wire) ASSERT_TRUE(c.Send(std::string(1, byte)));
  EXPECT_EQ(c.Read().body, "POST /a 1");
  EXPECT_EQ(c.Read().body, "waited");
  EXPECT_EQ(c.Read().body, "POST /b 333");
  ASSERT_TRUE(c.Send(wire));  // all at once
  EXPECT_EQ(c.Read().body, "POST /a 1");
  EXPECT_EQ(c.Read().body, "waited");
  EXPECT_EQ(c.Read().body, "POST /b 333");
}

TEST(EpollHttpServer, ConnectionCloseAndHttp10) {
  EchoServer echo;
  {
    RawHttpConnection c(echo.port());
    ASSERT_TRUE(c.Send("GET /x HTTP/1.1\r\nConnection: close\r\n\r\nGET /ignored HTTP/1.1\r\n\r\n"));
    RawResponse r = c.Read();
    EXPECT_EQ(r.body, "GET /x ");
    EXPECT_TRUE(r.HasHeader("Connection: close\r\n"));
    EXPECT_TRUE(c.ReadsEof());
  }
  {
    RawHttpConnection c(echo.port());
    ASSERT_TRUE(c.Send("GET /x HTTP/1.0\r\n\r\n"));
    RawResponse r = c.Read();
    EXPECT_EQ(r.status, 200);
    EXPECT_TRUE(r.HasHeader("Connection: close\r\n"));
    EXPECT_TRUE(c.ReadsEof());
  }
  {
    RawHttpConnection c(echo.port());
    ASSERT_TRUE(c.Send("GET /x HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    EXPECT_TRUE(c.Read().HasHeader("Connection: keep-alive\r\n"));
    ASSERT_TRUE(c.Send("GET /y HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    EXPECT_EQ(c.Read().body, "GET /y ");
  }
}

TEST(EpollHttpServer, ProtocolErrorsAreAnsweredThenClosed) {
  EchoServer echo;
  struct Case {
    std::string wire;
    int status;
  };
  for (const Case& c : std::vector<Case>{
           {"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n", 411},
           {"POST /x HTTP/1.1\r\nContent-Length: 2000000\r\n\r\n", 413},
           {"GET /x HTTP/1.1\r\nX: " + std::string(2000, 'a') + "\r\n\r\n", 431},
           {"garbage\r\n\r\n", 400},
           {"GET /x HTTP/3\r\n\r\n", 505},
       }) {
    RawHttpConnection conn(echo.port());
    ASSERT_TRUE(conn.Send(c.wire));
    RawResponse r = conn.Read();
    EXPECT_EQ(r.status, c.status) << c.wire.substr(0, 60);
    EXPECT_TRUE(absl::StartsWith(r.body, "error: ")) << r.body;
    EXPECT_TRUE(r.HasHeader("Connection: close\r\n"));
    EXPECT_TRUE(conn.ReadsEof());
  }
}

TEST(EpollHttpServer, ExpectContinueGetsAnInterimResponse) {
  EchoServer echo;
  RawHttpConnection c(echo.port());
  ASSERT_TRUE(c.Send("POST /x HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n"));
  RawResponse interim = c.Read();
  EXPECT_TRUE(absl::StartsWith(interim.head, "HTTP/1.1 100 Continue\r\n")) << interim.head;
  ASSERT_TRUE(c.Send("body"));
  EXPECT_EQ(c.Read().body, "POST /x body");
}

TEST(EpollHttpServer, LargeResponsesSurvivePartialWrites) {
  EchoServer echo;
  RawHttpConnection c(echo.port());
  constexpr int kBytes = 24 << 20;  // far above the socket buffers: the server meets EAGAIN
  ASSERT_TRUE(c.Send(absl::StrCat("GET /big/", kBytes, " HTTP/1.1\r\n\r\nGET /big/3 HTTP/1.1\r\n\r\n")));
  RawResponse big = c.Read();
  ASSERT_EQ(big.body.size(), static_cast<size_t>(kBytes));
  for (size_t i = 0; i < big.body.size(); i += 4099) ASSERT_EQ(big.body[i], static_cast<char>('a' + i % 26)) << i;
  EXPECT_EQ(c.Read().body, "abc");
}

TEST(EpollHttpServer, StopAnswersWaitingRequestsAndDisconnectsDropThem) {
  EchoServer echo;
  constexpr int kWaiting = 200;
  std::vector<std::unique_ptr<RawHttpConnection>> connections;
  for (int i = 0; i < kWaiting; ++i) {
    connections.push_back(std::make_unique<RawHttpConnection>(echo.port()));
    ASSERT_TRUE(connections.back()->Send("GET /wait/3600000 HTTP/1.1\r\n\r\n"));
  }
  while (echo.waiting() < kWaiting) std::this_thread::yield();  // every request is parsed and waiting
  echo.server().Stop();
  for (auto& c : connections) {
    RawResponse r = c->Read();
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "stopped");
    EXPECT_TRUE(r.HasHeader("Connection: close\r\n"));
  }
  EXPECT_EQ(echo.dropped(), 0);
}

TEST(EpollHttpServer, ResetWhileWaitingDropsTheReplyUnmade) {
  EchoServer echo;
  RawHttpConnection leaver(echo.port());
  ASSERT_TRUE(leaver.Send("GET /wait/3600000 HTTP/1.1\r\n\r\n"));
  while (echo.waiting() < 1) std::this_thread::yield();
  leaver.Reset();
  while (echo.dropped() < 1) std::this_thread::yield();  // hangs (ctest timeout) if never dropped
  RawHttpConnection other(echo.port());
  ASSERT_TRUE(other.Send("GET /x HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(other.Read().status, 200);
}

TEST(EpollHttpServer, SeveralLoopsServeManyConnections) {
  EchoServer echo(4);
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  for (int t = 0; t < 16; ++t) {
    clients.emplace_back([&, t] {
      RawHttpConnection c(echo.port());
      for (int i = 0; i < 20; ++i) {
        const std::string body = absl::StrCat(t, "-", i);
        if (!c.Send(absl::StrCat("POST /e HTTP/1.1\r\nContent-Length: ", body.size(), "\r\n\r\n", body))) return;
        if (c.Read().body == "POST /e " + body) ++ok;
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(ok.load(), 16 * 20);
}

TEST(EpollHttpServer, BusyPortAndSecondStart) {
  EchoServer first;
  EpollHttpServer second([](HttpRequest&) { return HttpReply{}; },
                         [](int, absl::string_view) { return HttpResponse{}; });
  EpollHttpServerOptions options;
  options.port = first.port();
  absl::StatusOr<int> port = second.Start(options);
  ASSERT_FALSE(port.ok());
  EXPECT_NE(port.status().message().find(std::to_string(first.port())), std::string::npos) << port.status();
  EXPECT_FALSE(first.server().Start({}).ok());
}

}  // namespace
}  // namespace noveltygrid::sim_http
