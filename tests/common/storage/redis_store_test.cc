// RedisStore beyond the shared Store contract: URLs and databases, passwords, unreachable servers,
// timeouts, pooling, pipelining, and surviving broken connections and server restarts. Most tests run
// a real redis-server; the failure cases a real server will not produce on demand use FakeRedisServer.
#include "common/storage/redis_store.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/storage/fake_redis_server.h"
#include "tests/common/storage/redis_server.h"
#include "tests/common/storage/status_testing.h"

namespace noveltygrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Optional;
using testing_redis::FakeRedisServer;
using testing_redis::FreeLoopbackPort;
using testing_redis::RedisServer;
using testing_status::MessageOf;
using testing_status::Must;

constexpr char kPong[] = "+PONG\r\n";

std::unique_ptr<RedisServer> StartServer(RedisServer::Options options = {}) {
  absl::StatusOr<std::unique_ptr<RedisServer>> server = RedisServer::Start(options);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
}

// Fast retries, so failure tests stay quick.
RedisOptions QuickOptions() {
  RedisOptions options;
  options.initial_backoff = absl::Milliseconds(5);
  options.max_backoff = absl::Milliseconds(20);
  return options;
}

int64_t ConnectedClients(const RedisServer& server) {
  const std::string info = Must(server.Command({"INFO", "clients"}));
  const size_t at = info.find("connected_clients:");
  int64_t clients = -1;
  if (at != std::string::npos) {
    const size_t begin = at + std::string("connected_clients:").size();
    EXPECT_TRUE(absl::SimpleAtoi(info.substr(begin, info.find('\r', begin) - begin), &clients)) << info;
  }
  return clients;
}

TEST(RedisStoreTest, DescribeNamesHostPortAndDbButNoPassword) {
  std::unique_ptr<RedisServer> server = StartServer({.password = "pa55word"});
  ASSERT_NE(server, nullptr);
  std::unique_ptr<RedisStore> store = Must(RedisStore::Connect(server->url(3)));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->Describe(), absl::StrCat("redis://", server->host_port(), "/3"));
}

TEST(RedisStoreTest, TheDbInTheUrlIsSelected) {
  std::unique_ptr<RedisServer> server = StartServer();
  ASSERT_NE(server, nullptr);
  std::unique_ptr<RedisStore> db1 = Must(RedisStore::Connect(server->url(1)));
  std::unique_ptr<RedisStore> db0 = Must(RedisStore::Connect(server->url(0)));
  ASSERT_TRUE(db1 && db0);
  ASSERT_OK(db1->Set("where", "db1"));
  EXPECT_THAT(Must(db1->Get("where")), Optional(std::string("db1")));
  EXPECT_EQ(Must(db0->Get("where")), std::nullopt);
  EXPECT_EQ(Must(server->Command({"DBSIZE"})), "0");  // the helper talks to db 0 too

  const absl::Status out_of_range = RedisStore::Connect(server->url(99)).status();
  EXPECT_EQ(out_of_range.code(), absl::StatusCode::kInvalidArgument) << out_of_range;
  EXPECT_THAT(MessageOf(out_of_range), HasSubstr("SELECT 99"));
}

TEST(RedisStoreTest, PasswordProtectedServer) {
  const std::string password = "correct-horse-battery";
  std::unique_ptr<RedisServer> server = StartServer({.password = password});
  ASSERT_NE(server, nullptr);
  const std::string host_port = server->host_port();

  std::unique_ptr<RedisStore> store = Must(RedisStore::Connect(server->url()));
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Set("k", "v"));
  std::unique_ptr<RedisStore> as_user =
      Must(RedisStore::Connect(absl::StrCat("redis://default:", password, "@", host_port)));
  ASSERT_NE(as_user, nullptr);
  EXPECT_THAT(Must(as_user->Get("k")), Optional(std::string("v")));

  for (const std::string& url :
       {absl::StrCat("redis://:wrong-staple@", host_port), absl::StrCat("redis://default:wrong-staple@", host_port),
        absl::StrCat("redis://", host_port)}) {
    const absl::Status status = RedisStore::Connect(url).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kUnauthenticated) << status;
    EXPECT_THAT(MessageOf(status), HasSubstr(host_port));
    EXPECT_THAT(MessageOf(status), HasSubstr("password in the URL"));
    EXPECT_THAT(MessageOf(status), Not(HasSubstr("wrong-staple")));
    EXPECT_THAT(MessageOf(status), Not(HasSubstr(password)));
  }
}

TEST(RedisStoreTest, UnreachableServerIsUnavailableAtOnce) {
  const int port = FreeLoopbackPort();  // nothing listens there
  const absl::Time start = absl::Now();
  const absl::Status status = RedisStore::Connect(absl::StrCat("redis://:topsecret@127.0.0.1:", port)).status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));  // no retries at start-up
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(MessageOf(status), HasSubstr(absl::StrCat("127.0.0.1:", port)));
  EXPECT_THAT(MessageOf(status), HasSubstr("refused"));
  EXPECT_THAT(MessageOf(status), Not(HasSubstr("topsecret")));
}

TEST(RedisStoreTest, ConnectTimeoutBoundsAServerThatNeverAccepts) {
  // A listener with backlog 0 whose queue is full: the kernel drops further SYNs, so connect() hangs.
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(listener, 0), 0);
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  std::vector<int> fillers;
  for (int i = 0; i < 3; ++i) {
    fillers.push_back(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0));
    ::connect(fillers.back(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  }

  RedisOptions options;
  options.connect_timeout = absl::Milliseconds(300);
  const absl::Time start = absl::Now();
  const absl::Status status =
      RedisStore::Connect(absl::StrCat("redis://127.0.0.1:", ntohs(addr.sin_port)), options).status();
  const absl::Duration elapsed = absl::Now() - start;
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(MessageOf(status), HasSubstr("connect timeout 300ms"));
  EXPECT_GE(elapsed, absl::Milliseconds(250));
  EXPECT_LT(elapsed, absl::Seconds(2));
  for (int fd : fillers) ::close(fd);
  ::close(listener);
}

TEST(RedisStoreTest, CommandTimeoutBoundsAServerThatNeverAnswers) {
  FakeRedisServer fake([](const std::vector<std::string>& command) -> std::optional<std::string> {
    return command[0] == "PING" ? kPong : "";  // GET: no answer, ever
  });
  RedisOptions options = QuickOptions();
  options.command_timeout = absl::Milliseconds(200);
  options.max_retries = 1;
  std::unique_ptr<RedisStore> store = Must(RedisStore::Connect(fake.url(), options));
  ASSERT_NE(store, nullptr);
  const absl::Time start = absl::Now();
  const absl::Status status = store->Get("k").status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(MessageOf(status), HasSubstr("no reply within the command timeout of 200ms"));
  EXPECT_THAT(MessageOf(status), HasSubstr("GET on key \"k\""));
  EXPECT_THAT(MessageOf(status), HasSubstr("gave up after 2 attempts"));
  EXPECT_EQ(fake.count("GET"), 2);
}

TEST(RedisStoreTest, ACommandCutOffByABrokenConnectionIsRetriedOnAFreshOne) {
  std::atomic<int> gets{0};
  FakeRedisServer fake([&](const std::vector<std::string>& command) -> std::optional<std::string> {
    if (command[0] == "PING") return kPong;
    if (command[0] == "GET" && ++gets == 1) return std::nullopt;  // dies with the GET unanswered
    return "$5\r\nvalue\r\n";
  });
  std::unique_ptr<RedisStore> store = Must(RedisStore::Connect(fake.url(), QuickOptions()));
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(Must(store->Get("k")), Optional(std::string("value")));
  EXPECT_EQ(fake.count("GET"), 2);
  EXPECT_EQ(fake.count("PING"), 2);  // two connections, each with its handshake
}

TEST(RedisStoreTest, ANonIdempotentCommandThatMayHaveRunIsNotRepeated) {
  FakeRedisServer fake([](const std::vector<std::string>& command) -> std::optional<std::string> {
    if (command[0] == "PING") return kPong;
    return std::nullopt;  // RPUSH reached the server, then the connection died
  });
  std::unique_ptr<RedisStore> store = Must(RedisStore::Connect(fake.url(), QuickOptions()));
  ASSERT_NE(store, nullptr);
  const absl::Status status = store->ListAppend("log", "entry").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(MessageOf(status), HasSubstr("may or may not have been applied"));
  EXPECT_EQ(fake.count("RPUSH"), 1);  // a retry could have appended twice
}

TEST(RedisStoreTest, LoadingRepliesAreRetried) {
  std::atomic<int> refusals{0};
  FakeRedisServer fake([&](const std::vector<std::string>& command) -> std::optional<std::string> {
    if (command[0] == "PING") return kPong;
    if (refusals++ < 2) return "-LOADING Redis is loading the dataset in memory\r\n";
    return ":1\r\n";
  });
  std::unique_ptr<RedisStore> store = Must(RedisStore::Connect(fake.url(), QuickOptions()));
  ASSERT_NE(store, nullptr);
  // Safe even for RPUSH: a refused command did not run.
  EXPECT_EQ(Must(store->ListAppend("log", "entry")), 1);
  EXPECT_EQ(fake.count("RPUSH"), 3);
}

TEST(RedisStoreTest, GivesUpAfterMaxRetries) {
  FakeRedisServer fake([](const std::vector<std::string>& command) -> std::optional<std::string> {
    if (command[0] == "PING") return kPong;
    return std::nullopt;
  });
  RedisOptions options = QuickOptions();
  options.max_retries = 3;
  std::unique_ptr<RedisStore> store = Must(RedisStore::Connect(fake.url(), options));
  ASSERT_NE(store, nullptr);
  const absl::Status status = store->Get("k").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(MessageOf(status), HasSubstr("gave up after 4 attempts"));
  EXPECT_EQ(fake.count("GET"), 4);
}

TEST(RedisStoreTest, PipelinesInBatches) {
  FakeRedisServer fake([](const std::vector<std::string>& command) -> std::optional<std::string> {
    if (command[0] == "MGET") {
      std::string reply = absl::StrCat("*", command.size() - 1, "\r\n");
      for (size_t i = 1; i < command.size(); ++i) {
        absl::StrAppend(&reply, "$", command[i].size() + 1, "\r\nv", command[i], "\r\n");
      }
      return reply;
    }
    if (command[0] == "HSETNX") return command[2] == "b" ? ":0\r\n" : ":1\r\n";  // b was there already
    return command[0] == "PING" ? kPong : "+OK\r\n";
  });
  RedisOptions options;
  options.pipeline_batch = 2;
  std::unique_ptr<RedisStore> store = Must(RedisStore::Connect(fake.url(), options));
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(Must(store->MultiGet({"a", "b", "c", "d", "e"})),
              ElementsAre(Optional(std::string("va")), Optional(std::string("vb")), Optional(std::string("vc")),
                          Optional(std::string("vd")), Optional(std::string("ve"))));
  ASSERT_OK(store->MultiSet({{"a", "1"}, {"b", "2"}, {"c", "3"}}));
  EXPECT_THAT(Must(store->HashSetIfAbsentMany("h", {{"a", "1"}, {"b", "2"}, {"c", "3"}})),
              ElementsAre(true, false, true));
  std::vector<std::vector<std::string>> sent;
  for (const auto& command : fake.commands()) {
    if (command[0] != "PING") sent.push_back(command);
  }
  EXPECT_THAT(sent, ElementsAre(ElementsAre("MGET", "a", "b"), ElementsAre("MGET", "c", "d"), ElementsAre("MGET", "e"),
                                ElementsAre("SET", "a", "1"), ElementsAre("SET", "b", "2"),
                                ElementsAre("SET", "c", "3"), ElementsAre("HSETNX", "h", "a", "1"),
                                ElementsAre("HSETNX", "h", "b", "2"), ElementsAre("HSETNX", "h", "c", "3")));
}

TEST(RedisStoreTest, SmallBatchesAgreeWithARealServer) {
  std::unique_ptr<RedisServer> server = StartServer();
  ASSERT_NE(server, nullptr);
  std::unique_ptr<RedisStore> store = Must(RedisStore::Connect(server->url(), {.pipeline_batch = 3}));
  ASSERT_NE(store, nullptr);
  std::vector<std::pair<std::string, std::string>> entries;
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i) {
    entries.emplace_back(absl::StrCat("k", i), absl::StrCat("v", i));
    keys.push_back(absl::StrCat("k", i));
  }
  ASSERT_OK(store->MultiSet(entries));
  const std::vector<std::optional<std::string>> values = Must(store->MultiGet(keys));
  ASSERT_EQ(values.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_THAT(values[i], Optional(entries[i].second));
}

TEST(RedisStoreTest, ThePoolBoundsConnections) {
  std::unique_ptr<RedisServer> server = StartServer();
  ASSERT_NE(server, nullptr);
  std::unique_ptr<RedisStore> store = Must(RedisStore::Connect(server->url(), {.pool_size = 2}));
  ASSERT_NE(store, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&store] {
      for (int i = 0; i < 50; ++i) EXPECT_OK(store->ListAppend("l", "x"));
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(Must(store->ListLength("l")), 300);
  EXPECT_LE(ConnectedClients(*server), 2 + 1);  // the pool, plus the helper asking
}

TEST(RedisStoreTest, ConnectionsTheServerDroppedAreReplacedBeforeUse) {
  std::unique_ptr<RedisServer> server = StartServer();
  ASSERT_NE(server, nullptr);
  std::unique_ptr<RedisStore> store = Must(RedisStore::Connect(server->url()));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(Must(store->ListAppend("log", "one")), 1);
  EXPECT_EQ(Must(server->Command({"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"})), "1");
  // Not idempotent, yet safe: the dead idle connection is noticed before anything is sent on it.
  EXPECT_EQ(Must(store->ListAppend("log", "two")), 2);
  EXPECT_THAT(Must(store->ListRange("log", 0, -1)), ElementsAre("one", "two"));
}

TEST(RedisStoreTest, SurvivesARestartOfTheServer) {
  std::unique_ptr<RedisServer> server = StartServer({.password = "", .append_only = true});
  ASSERT_NE(server, nullptr);
  std::unique_ptr<RedisStore> store = Must(RedisStore::Connect(server->url()));
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Set("survivor", "still here"));
  ASSERT_OK(store->ListAppend("log", "before"));

  ASSERT_OK(server->Stop());     // SIGTERM: Redis writes its append-only file and exits
  ASSERT_OK(server->Restart());  // same port, same folder

  EXPECT_THAT(Must(store->Get("survivor")), Optional(std::string("still here")));
  EXPECT_EQ(Must(store->ListAppend("log", "after")), 2);
}

TEST(RedisStoreTest, WhileTheServerIsDownCallsFailThenRecover) {
  std::unique_ptr<RedisServer> server = StartServer({.password = "", .append_only = true});
  ASSERT_NE(server, nullptr);
  RedisOptions options = QuickOptions();
  options.max_retries = 2;
  std::unique_ptr<RedisStore> store = Must(RedisStore::Connect(server->url(), options));
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Set("k", "v"));
  ASSERT_OK(server->Stop());

  const absl::Status down = store->Get("k").status();
  EXPECT_EQ(down.code(), absl::StatusCode::kUnavailable) << down;
  EXPECT_THAT(MessageOf(down), HasSubstr(server->host_port()));
  EXPECT_THAT(MessageOf(down), HasSubstr("gave up after 3 attempts"));

  ASSERT_OK(server->Restart());
  EXPECT_THAT(Must(store->Get("k")), Optional(std::string("v")));
}

}  // namespace
}  // namespace noveltygrid
