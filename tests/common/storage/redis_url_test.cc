#include "common/storage/redis_url.h"

#include <string>

#include "common/storage/memory_store.h"
#include "common/storage/store_factory.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/storage/status_testing.h"

namespace noveltygrid {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing_status::MessageOf;
using testing_status::Must;

// `url` parses into these parts and describes itself as `described` (without the password).
void ExpectParsed(const std::string& url, const std::string& host, int port, int db, const std::string& user,
                  const std::string& password, const std::string& described) {
  const RedisEndpoint endpoint = Must(ParseRedisUrl(url));
  EXPECT_EQ(endpoint.host, host) << url;
  EXPECT_EQ(endpoint.port, port) << url;
  EXPECT_EQ(endpoint.db, db) << url;
  EXPECT_EQ(endpoint.user, user) << url;
  EXPECT_EQ(endpoint.password, password) << url;
  EXPECT_EQ(endpoint.Describe(), described) << url;
}

TEST(RedisUrlTest, ParsesTheFullForm) {
  ExpectParsed("redis://:s3cret@cache.local:6380/2", "cache.local", 6380, 2, "", "s3cret",
               "redis://cache.local:6380/2");
}

TEST(RedisUrlTest, DefaultsPortAndDb) {
  ExpectParsed("redis://10.0.0.5", "10.0.0.5", 6379, 0, "", "", "redis://10.0.0.5:6379/0");
  EXPECT_EQ(Must(ParseRedisUrl("redis://h:1/")).db, 0);
  EXPECT_EQ(Must(ParseRedisUrl("REDIS://h:1/15")).db, 15);
}

TEST(RedisUrlTest, UserPasswordIpv6AndPercentEscapes) {
  ExpectParsed("redis://worker:p%40ss:w%2Frd@[::1]:7000/3", "::1", 7000, 3, "worker", "p@ss:w/rd",
               "redis://[::1]:7000/3");
  // A raw '@' in the password works too: the last '@' ends the user info.
  EXPECT_EQ(Must(ParseRedisUrl("redis://:a@b@h:1")).password, "a@b");
}

TEST(RedisUrlTest, RejectsMalformedUrlsWithoutShowingThePassword) {
  for (const std::string url :
       {"http://:hunter2@h:1", "redis://:hunter2@h:port", "redis://:hunter2@h:0", "redis://:hunter2@h:70000",
        "redis://:hunter2@h:1/x", "redis://:hunter2@h:1/-1", "redis://:hunter2@:1", "redis://:hunter2@h:1?db=2",
        "redis://hunter2@h:1", "redis://:hunter2%zz@h:1", "redis://:hunter2@::1:6379", "redis://:hunter2@[::1",
        "redis://:hunter2@h:", "rediss://:hunter2@h:1"}) {
    const absl::Status status = ParseRedisUrl(url).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << url;
    EXPECT_THAT(MessageOf(status), Not(HasSubstr("hunter2"))) << status;
    EXPECT_THAT(MessageOf(status), HasSubstr("***@")) << status;
    EXPECT_THAT(MessageOf(status), HasSubstr("redis://[[user]:password@]host[:port][/db]")) << status;
  }
  EXPECT_THAT(MessageOf(ParseRedisUrl("redis://:6379").status()), HasSubstr("host is empty"));
  EXPECT_THAT(MessageOf(ParseRedisUrl("redis://:hunter2@h:port").status()), HasSubstr("\"redis://:***@h:port\""));
}

TEST(RedisUrlTest, MaskKeepsTheUserAndHidesThePassword) {
  EXPECT_EQ(MaskRedisUrl("redis://:pw@h:1/0"), "redis://:***@h:1/0");
  EXPECT_EQ(MaskRedisUrl("redis://me:pw@h:1"), "redis://me:***@h:1");
  EXPECT_EQ(MaskRedisUrl("redis://pw@h:1"), "redis://***@h:1");
  EXPECT_EQ(MaskRedisUrl("redis://h:1/0"), "redis://h:1/0");
  EXPECT_EQ(MaskRedisUrl("weird:pw@h"), "weird:***@h");
}

TEST(StoreFactoryTest, EmptyOrMemoryGivesAnInMemoryStore) {
  for (const std::string url : {"", "memory"}) {
    std::unique_ptr<Store> store = Must(OpenStore(url));
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->Describe(), "memory");
    EXPECT_NE(dynamic_cast<InMemoryStore*>(store.get()), nullptr);
  }
}

TEST(StoreFactoryTest, UnknownFormsListTheAcceptedOnes) {
  for (const std::string url : {"mem", "http://:hunter2@h:1", "/tmp/store", "Memory"}) {
    const absl::Status status = OpenStore(url).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << url;
    EXPECT_THAT(MessageOf(status), HasSubstr("\"memory\"")) << status;
    EXPECT_THAT(MessageOf(status), HasSubstr("redis://")) << status;
    EXPECT_THAT(MessageOf(status), Not(HasSubstr("hunter2"))) << status;
  }
  const absl::Status bad_redis = OpenStore("redis://:hunter2@h:notaport").status();
  EXPECT_EQ(bad_redis.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(MessageOf(bad_redis), Not(HasSubstr("hunter2")));
}

}  // namespace
}  // namespace noveltygrid
