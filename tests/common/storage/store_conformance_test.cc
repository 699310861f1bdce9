// The Store contract, run against every implementation: InMemoryStore and RedisStore on a real
// redis-server. Both come from OpenStore(), so the factory is exercised too.
#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/storage/store.h"
#include "common/storage/store_factory.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/storage/redis_server.h"
#include "tests/common/storage/status_testing.h"

namespace noveltygrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Optional;
using ::testing::Pair;
using ::testing::StartsWith;
using testing_redis::RedisServer;
using testing_status::MessageOf;
using testing_status::Must;

class StoreConformanceTest : public ::testing::TestWithParam<std::string> {
 protected:
  // One redis-server for the whole suite, started by the first Redis test; FLUSHALL before each test.
  static void TearDownTestSuite() { redis_.reset(); }

  void SetUp() override {
    std::string url = "memory";
    if (GetParam() == "redis") {
      if (redis_ == nullptr) {
        absl::StatusOr<std::unique_ptr<RedisServer>> server = RedisServer::Start();
        ASSERT_TRUE(server.ok()) << server.status();
        redis_ = *std::move(server);
      }
      ASSERT_TRUE(redis_->Command({"FLUSHALL"}).ok());
      url = redis_->url();
    }
    absl::StatusOr<std::unique_ptr<Store>> store = OpenStore(url);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }

  static inline std::unique_ptr<RedisServer> redis_;
  std::unique_ptr<Store> store_;
};

TEST_P(StoreConformanceTest, GetOfMissingKeyIsNullopt) { EXPECT_EQ(Must(store_->Get("nothing-here")), std::nullopt); }

TEST_P(StoreConformanceTest, SetThenGetAndOverwrite) {
  ASSERT_OK(store_->Set("k", "v1"));
  EXPECT_THAT(Must(store_->Get("k")), Optional(std::string("v1")));
  ASSERT_OK(store_->Set("k", "v2"));
  EXPECT_THAT(Must(store_->Get("k")), Optional(std::string("v2")));
  ASSERT_OK(store_->Set("empty", ""));
  EXPECT_THAT(Must(store_->Get("empty")), Optional(std::string()));  // empty is not missing
}

TEST_P(StoreConformanceTest, KeysAndValuesAreBinarySafe) {
  const std::string key("k\0ey\xff", 5);
  std::string value("a\0b\r\n\0", 6);
  for (int i = 0; i < 256; ++i) value.push_back(static_cast<char>(i));
  ASSERT_OK(store_->Set(key, value));
  EXPECT_THAT(Must(store_->Get(key)), Optional(value));
  EXPECT_EQ(Must(store_->Get(std::string("k\0ey", 4))), std::nullopt);  // NUL does not end the key

  const std::string big(1 << 20, '\0');
  ASSERT_OK(store_->Set("big", big));
  EXPECT_THAT(Must(store_->Get("big")), Optional(big));

  ASSERT_OK(store_->HashSet(key + "h", std::string("f\0", 2), value));
  EXPECT_THAT(Must(store_->HashGetAll(key + "h")), ElementsAre(Pair(std::string("f\0", 2), value)));
  ASSERT_OK(store_->ListAppend(key + "l", value));
  EXPECT_THAT(Must(store_->ListRange(key + "l", 0, -1)), ElementsAre(value));
}

TEST_P(StoreConformanceTest, SetIfAbsentOnlySetsOnce) {
  EXPECT_TRUE(Must(store_->SetIfAbsent("once", "first")));
  EXPECT_FALSE(Must(store_->SetIfAbsent("once", "second")));
  EXPECT_THAT(Must(store_->Get("once")), Optional(std::string("first")));
  ASSERT_OK(store_->ListAppend("a-list", "x"));
  EXPECT_FALSE(Must(store_->SetIfAbsent("a-list", "y")));  // a key of any kind counts
}

TEST_P(StoreConformanceTest, MultiGetKeepsOrderAndReportsMissing) {
  ASSERT_OK(store_->Set("a", "1"));
  ASSERT_OK(store_->Set("c", "3"));
  ASSERT_OK(store_->ListAppend("list", "x"));
  EXPECT_THAT(Must(store_->MultiGet({"c", "missing", "a", "c", "list"})),
              ElementsAre(Optional(std::string("3")), std::nullopt, Optional(std::string("1")),
                          Optional(std::string("3")), std::nullopt));
  EXPECT_THAT(Must(store_->MultiGet({})), IsEmpty());
}

TEST_P(StoreConformanceTest, MultiSetOf5000EntriesThenMultiGet) {
  std::vector<std::pair<std::string, std::string>> entries;
  std::vector<std::string> keys;
  for (int i = 0; i < 5000; ++i) {
    entries.emplace_back(absl::StrCat("key:", i),
                         absl::StrCat(std::string("value\0:", 7), i, std::string(i % 50, 'x')));
    keys.push_back(entries.back().first);
  }
  keys.push_back("key:absent");
  ASSERT_OK(store_->MultiSet(entries));
  const std::vector<std::optional<std::string>> values = Must(store_->MultiGet(keys));
  ASSERT_EQ(values.size(), 5001u);
  for (int i = 0; i < 5000; ++i) EXPECT_THAT(values[i], Optional(entries[i].second)) << i;
  EXPECT_EQ(values.back(), std::nullopt);

  ASSERT_OK(store_->MultiSet({{"dup", "first"}, {"dup", "last"}}));
  EXPECT_THAT(Must(store_->Get("dup")), Optional(std::string("last")));
  EXPECT_OK(store_->MultiSet({}));
}

TEST_P(StoreConformanceTest, DeleteRemovesAnyKind) {
  ASSERT_OK(store_->Set("s", "v"));
  ASSERT_OK(store_->HashSet("h", "f", "v"));
  ASSERT_OK(store_->ListAppend("l", "v"));
  for (const char* key : {"s", "h", "l", "never-existed"}) ASSERT_OK(store_->Delete(key));
  EXPECT_EQ(Must(store_->Get("s")), std::nullopt);
  EXPECT_EQ(Must(store_->HashLength("h")), 0);
  EXPECT_EQ(Must(store_->ListLength("l")), 0);
  EXPECT_TRUE(Must(store_->SetIfAbsent("l", "now a string")));
}

TEST_P(StoreConformanceTest, DeleteManyRemovesEveryKeyOfAnyKind) {
  ASSERT_OK(store_->Set("s", "v"));
  ASSERT_OK(store_->HashSet("h", "f", "v"));
  ASSERT_OK(store_->ListAppend("l", "v"));
  ASSERT_OK(store_->Set("kept", "v"));
  ASSERT_OK(store_->DeleteMany({"s", "h", "l", "never-existed"}));
  EXPECT_EQ(Must(store_->Get("s")), std::nullopt);
  EXPECT_EQ(Must(store_->HashLength("h")), 0);
  EXPECT_EQ(Must(store_->ListLength("l")), 0);
  EXPECT_THAT(Must(store_->Get("kept")), Optional(std::string("v")));
  EXPECT_OK(store_->DeleteMany({}));
}

TEST_P(StoreConformanceTest, HashSetManySetsEveryFieldAndOverwrites) {
  ASSERT_OK(store_->HashSet("h", "b", "old"));
  ASSERT_OK(store_->HashSetMany("h", {{"a", "va"}, {"b", "vb"}, {std::string("c\0", 2), "vc"}}));
  EXPECT_THAT(Must(store_->HashGetAll("h")),
              ElementsAre(Pair("a", "va"), Pair("b", "vb"), Pair(std::string("c\0", 2), "vc")));
  EXPECT_OK(store_->HashSetMany("h", {}));
  ASSERT_OK(store_->Set("s", "a string"));
  EXPECT_FALSE(store_->HashSetMany("s", {{"f", "v"}}).ok());  // not a hash
}

TEST_P(StoreConformanceTest, HashOperationsAreSortedByField) {
  std::vector<std::string> fields = {"m", "b", "z", "a", "k", "a\0x"};
  fields.back() = std::string("a\0x", 3);
  std::shuffle(fields.begin(), fields.end(), std::mt19937(7));
  for (const std::string& field : fields) ASSERT_OK(store_->HashSet("h", field, "v" + field));
  ASSERT_OK(store_->HashSet("h", "b", "overwritten"));
  EXPECT_EQ(Must(store_->HashLength("h")), 6);
  EXPECT_THAT(Must(store_->HashGetAll("h")),
              ElementsAre(Pair("a", "va"), Pair(std::string("a\0x", 3), "v" + std::string("a\0x", 3)),
                          Pair("b", "overwritten"), Pair("k", "vk"), Pair("m", "vm"), Pair("z", "vz")));
  EXPECT_THAT(Must(store_->HashGetAll("no-hash")), IsEmpty());
  EXPECT_EQ(Must(store_->HashLength("no-hash")), 0);
}

TEST_P(StoreConformanceTest, HashSetIfAbsentKeepsTheFirstValueOfAField) {
  EXPECT_TRUE(Must(store_->HashSetIfAbsent("h", "f", "first")));
  EXPECT_FALSE(Must(store_->HashSetIfAbsent("h", "f", "second")));
  EXPECT_TRUE(Must(store_->HashSetIfAbsent("h", "g", "other field")));
  EXPECT_THAT(Must(store_->HashGetAll("h")), ElementsAre(Pair("f", "first"), Pair("g", "other field")));
  ASSERT_OK(store_->Set("s", "a string"));
  EXPECT_FALSE(store_->HashSetIfAbsent("s", "f", "v").ok());  // not a hash
}

TEST_P(StoreConformanceTest, HashSetIfAbsentManySetsOnlyTheFieldsNotThereYet) {
  ASSERT_OK(store_->HashSet("h", "b", "old"));
  const std::string binary("c\0", 2);
  EXPECT_THAT(Must(store_->HashSetIfAbsentMany("h", {{"a", "va"}, {"b", "vb"}, {"a", "again"}, {binary, "vc"}})),
              ElementsAre(true, false, false, true));  // a field given twice: its first value
  EXPECT_THAT(Must(store_->HashGetAll("h")), ElementsAre(Pair("a", "va"), Pair("b", "old"), Pair(binary, "vc")));
  EXPECT_THAT(Must(store_->HashSetIfAbsentMany("no-hash", {})), IsEmpty());
  EXPECT_EQ(Must(store_->HashLength("no-hash")), 0);  // nothing given: nothing created
  ASSERT_OK(store_->Set("s", "a string"));
  EXPECT_EQ(store_->HashSetIfAbsentMany("s", {{"f", "v"}}).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_P(StoreConformanceTest, HashSetIfAbsentManyKeepsTheOrderOfTheFieldsAcrossBatches) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (int i = 0; i < 2500; ++i) entries.emplace_back(absl::StrCat("f", i), absl::StrCat("new", i));  // > 1 batch
  for (size_t i = 0; i < entries.size(); i += 3) ASSERT_OK(store_->HashSet("h", entries[i].first, "old"));
  const std::vector<bool> set = Must(store_->HashSetIfAbsentMany("h", entries));
  ASSERT_EQ(set.size(), entries.size());
  for (size_t i = 0; i < entries.size(); ++i) EXPECT_EQ(set[i], i % 3 != 0) << i;
  EXPECT_EQ(Must(store_->HashLength("h")), 2500);
  EXPECT_THAT(Must(store_->HashMultiGet("h", {"f0", "f1"})),
              ElementsAre(Optional(std::string("old")), Optional(std::string("new1"))));
}

TEST_P(StoreConformanceTest, HashMultiGetKeepsTheOrderOfTheFieldsAcrossBatches) {
  std::vector<std::string> fields;
  for (int i = 0; i < 2500; ++i) fields.push_back("f" + std::to_string(i));  // more than one pipeline batch
  for (size_t i = 0; i < fields.size(); i += 3) ASSERT_OK(store_->HashSet("h", fields[i], "v" + fields[i]));
  fields.push_back("never-set");
  const std::vector<std::optional<std::string>> values = Must(store_->HashMultiGet("h", fields));
  ASSERT_EQ(values.size(), fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i % 3 == 0 && i < 2500) {
      EXPECT_EQ(values[i], "v" + fields[i]) << i;
    } else {
      EXPECT_EQ(values[i], std::nullopt) << i;
    }
  }
  EXPECT_THAT(Must(store_->HashMultiGet("no-hash", {"a", "b"})), ElementsAre(std::nullopt, std::nullopt));
  EXPECT_THAT(Must(store_->HashMultiGet("h", {})), IsEmpty());
}

TEST_P(StoreConformanceTest, ListAppendManyAppendsInOrderInOneCommand) {
  EXPECT_EQ(Must(store_->ListAppendMany("l", {"a", std::string("\0b", 2), "c"})), 3);
  EXPECT_EQ(Must(store_->ListAppendMany("l", {"d"})), 4);
  EXPECT_THAT(Must(store_->ListRange("l", 0, -1)), ElementsAre("a", std::string("\0b", 2), "c", "d"));
  EXPECT_EQ(store_->ListAppendMany("l", {}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Must(store_->ListLength("l")), 4);
}

TEST_P(StoreConformanceTest, ListAppendRangeTrimLength) {
  for (int i = 0; i < 6; ++i) EXPECT_EQ(Must(store_->ListAppend("l", absl::StrCat("e", i))), i + 1);
  EXPECT_EQ(Must(store_->ListLength("l")), 6);
  EXPECT_THAT(Must(store_->ListRange("l", 0, -1)), ElementsAre("e0", "e1", "e2", "e3", "e4", "e5"));
  EXPECT_THAT(Must(store_->ListRange("l", 1, 2)), ElementsAre("e1", "e2"));
  EXPECT_THAT(Must(store_->ListRange("l", -2, -1)), ElementsAre("e4", "e5"));
  EXPECT_THAT(Must(store_->ListRange("l", -100, 1)), ElementsAre("e0", "e1"));
  EXPECT_THAT(Must(store_->ListRange("l", 4, 100)), ElementsAre("e4", "e5"));
  EXPECT_THAT(Must(store_->ListRange("l", 3, 2)), IsEmpty());
  EXPECT_THAT(Must(store_->ListRange("l", 6, 10)), IsEmpty());
  EXPECT_THAT(Must(store_->ListRange("no-list", 0, -1)), IsEmpty());

  ASSERT_OK(store_->ListTrim("l", -4, -1));  // keep the last four
  EXPECT_THAT(Must(store_->ListRange("l", 0, -1)), ElementsAre("e2", "e3", "e4", "e5"));
  ASSERT_OK(store_->ListTrim("l", 1, 100));
  EXPECT_THAT(Must(store_->ListRange("l", 0, -1)), ElementsAre("e3", "e4", "e5"));
  ASSERT_OK(store_->ListTrim("l", 5, 10));  // empty: the list disappears
  EXPECT_EQ(Must(store_->ListLength("l")), 0);
  EXPECT_TRUE(Must(store_->SetIfAbsent("l", "free again")));
  ASSERT_OK(store_->ListTrim("no-list", 0, 1));
  EXPECT_EQ(Must(store_->ListLength("no-list")), 0);
}

TEST_P(StoreConformanceTest, UsingAKeyAsTheWrongKindIsFailedPrecondition) {
  ASSERT_OK(store_->Set("str", "v"));
  ASSERT_OK(store_->ListAppend("lst", "v"));
  const absl::Status statuses[] = {
      store_->ListAppend("str", "x").status(),  store_->HashSet("lst", "f", "v"),   store_->Get("lst").status(),
      store_->HashGetAll("str").status(),       store_->ListLength("str").status(), store_->HashLength("lst").status(),
      store_->ListRange("str", 0, -1).status(), store_->ListTrim("str", 0, 1)};
  for (const absl::Status& status : statuses) {
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
    EXPECT_THAT(MessageOf(status), HasSubstr("on key \"")) << status;
  }
  EXPECT_THAT(MessageOf(store_->ListAppend("str", "x").status()), HasSubstr("RPUSH on key \"str\""));
  EXPECT_THAT(Must(store_->Get("str")), Optional(std::string("v")));  // untouched
  ASSERT_OK(store_->Set("lst", "replaced"));                          // Set replaces any kind
  EXPECT_THAT(Must(store_->Get("lst")), Optional(std::string("replaced")));
}

TEST_P(StoreConformanceTest, ConcurrentCallsFromManyThreads) {
  constexpr int kThreads = 8, kPerThread = 100;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::string item = absl::StrCat(t, ":", i);
        EXPECT_OK(store_->ListAppend("shared", item));
        EXPECT_OK(store_->Set("k" + item, item));
        EXPECT_OK(store_->HashSet("h", item, item));
        EXPECT_THAT(Must(store_->Get("k" + item)), Optional(item));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(Must(store_->ListLength("shared")), kThreads * kPerThread);
  EXPECT_EQ(Must(store_->HashLength("h")), kThreads * kPerThread);
  std::vector<std::string> items = Must(store_->ListRange("shared", 0, -1));
  std::sort(items.begin(), items.end());
  EXPECT_EQ(std::unique(items.begin(), items.end()), items.end());
}

TEST_P(StoreConformanceTest, DescribeNamesTheBackend) {
  if (GetParam() == "memory") {
    EXPECT_EQ(store_->Describe(), "memory");
  } else {
    EXPECT_EQ(store_->Describe(), absl::StrCat("redis://", redis_->host_port(), "/0"));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreConformanceTest, ::testing::Values("memory", "redis"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace noveltygrid
