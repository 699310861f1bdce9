#include "tests/integration/secret_scan.h"

#include <hiredis/hiredis.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace noveltygrid::testing {
namespace {

// The part of base64(`k` unknown bytes + `secret` + unknown bytes) that depends on `secret` alone:
// the 4-character groups the unknown bytes share are dropped.
std::string Base64Core(const std::string& secret, int k) {
  const std::string encoded = absl::Base64Escape(std::string(k, '\0') + secret);
  const size_t begin = k > 0 ? 4 : 0;
  const size_t end = encoded.size() - ((k + secret.size()) % 3 != 0 ? 4 : 0);
  return encoded.substr(begin, end - begin);
}

std::string ReadBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

struct ReplyDeleter {
  void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;
struct ContextDeleter {
  void operator()(redisContext* context) const { redisFree(context); }
};

// Runs one command; an error reply or a lost connection is an error naming the command (the
// arguments are not quoted: AUTH's is the password).
absl::StatusOr<Reply> Run(redisContext* context, const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (const std::string& arg : args) {
    argv.push_back(arg.data());
    lengths.push_back(arg.size());
  }
  Reply reply(
      static_cast<redisReply*>(redisCommandArgv(context, static_cast<int>(argv.size()), argv.data(), lengths.data())));
  if (reply == nullptr) return absl::UnavailableError(absl::StrCat("redis ", args[0], ": ", context->errstr));
  if (reply->type == REDIS_REPLY_ERROR) {
    return absl::InternalError(absl::StrCat("redis ", args[0], ": ", std::string(reply->str, reply->len)));
  }
  return reply;
}

// Scans database `db` into `scan`.
absl::Status ScanDatabase(redisContext* context, int db, const std::vector<Canary>& canaries, RedisScan* scan) {
  absl::StatusOr<Reply> selected = Run(context, {"SELECT", std::to_string(db)});
  if (!selected.ok()) return selected.status();
  std::string cursor = "0";
  do {
    absl::StatusOr<Reply> page = Run(context, {"SCAN", cursor, "COUNT", "1000"});
    if (!page.ok()) return page.status();
    const redisReply& r = **page;
    if (r.type != REDIS_REPLY_ARRAY || r.elements != 2) return absl::InternalError("redis SCAN: unexpected reply");
    cursor = std::string(r.element[0]->str, r.element[0]->len);
    for (size_t i = 0; i < r.element[1]->elements; ++i) {
      const std::string key(r.element[1]->element[i]->str, r.element[1]->element[i]->len);
      ++scan->keys;
      const std::string where = absl::StrCat("redis db ", db, " key ", absl::CHexEscape(key));
      for (Leak& leak : FindLeaks(where + " (its name)", key, canaries)) scan->leaks.push_back(std::move(leak));
      absl::StatusOr<Reply> dump = Run(context, {"DUMP", key});
      if (!dump.ok()) return dump.status();
      if ((*dump)->type != REDIS_REPLY_STRING) continue;  // deleted since SCAN
      const absl::string_view value((*dump)->str, (*dump)->len);
      for (Leak& leak : FindLeaks(where + " (DUMP)", value, canaries)) scan->leaks.push_back(std::move(leak));
    }
  } while (cursor != "0");
  return absl::OkStatus();
}

}  // namespace

Canary MakeCanary(const std::string& what, const std::string& label) {
  std::random_device random;
  std::string bytes;
  for (int i = 0; i < 16; ++i) bytes.push_back(static_cast<char>(random() & 0xff));
  const std::string hex = absl::BytesToHexString(bytes);
  Canary canary{what, absl::StrCat(label, "-", hex), {}};
  canary.forms = {{"verbatim", canary.value}, {"its random part", hex}, {"Bearer form", "Bearer " + canary.value}};
  for (int k = 0; k < 3; ++k) {
    const std::string core = Base64Core(canary.value, k);
    canary.forms.push_back({absl::StrCat("base64 (offset ", k, ")"), core});
    const std::string web_safe = absl::StrReplaceAll(core, {{"+", "-"}, {"/", "_"}});
    if (web_safe != core) canary.forms.push_back({absl::StrCat("web-safe base64 (offset ", k, ")"), web_safe});
  }
  return canary;
}

std::vector<Leak> FindLeaks(const std::string& where, absl::string_view bytes, const std::vector<Canary>& canaries) {
  std::vector<Leak> leaks;
  for (const Canary& canary : canaries) {
    for (const auto& [form, needle] : canary.forms) {
      const size_t at = bytes.find(needle);
      if (at == absl::string_view::npos) continue;
      const size_t from = at < 40 ? 0 : at - 40;
      leaks.push_back({canary.what, form, where, absl::CHexEscape(bytes.substr(from, at - from + needle.size() + 40))});
    }
  }
  return leaks;
}

std::vector<Leak> ScanFolder(const std::string& root, const std::vector<Canary>& canaries, int* files) {
  std::vector<Leak> leaks;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    ++*files;
    for (Leak& leak : FindLeaks(entry.path().string(), ReadBytes(entry.path()), canaries)) {
      leaks.push_back(std::move(leak));
    }
  }
  return leaks;
}

absl::StatusOr<RedisScan> ScanRedis(int port, const std::string& password, const std::vector<Canary>& canaries) {
  std::unique_ptr<redisContext, ContextDeleter> context(redisConnectWithTimeout("127.0.0.1", port, {5, 0}));
  if (context == nullptr || context->err != 0) {
    return absl::UnavailableError(absl::StrCat("connect to redis on port ", port));
  }
  redisSetTimeout(context.get(), {10, 0});
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"AUTH", password}, {"CONFIG", "SET", "rdbcompression", "no"}}) {
    if (absl::StatusOr<Reply> reply = Run(context.get(), command); !reply.ok()) return reply.status();
  }
  absl::StatusOr<Reply> databases = Run(context.get(), {"CONFIG", "GET", "databases"});
  if (!databases.ok()) return databases.status();
  int count = 0;
  if ((*databases)->elements != 2 ||
      !absl::SimpleAtoi(absl::string_view((*databases)->element[1]->str, (*databases)->element[1]->len), &count)) {
    return absl::InternalError("redis CONFIG GET databases: unexpected reply");
  }
  RedisScan scan;
  for (int db = 0; db < count; ++db) {
    if (absl::Status status = ScanDatabase(context.get(), db, canaries, &scan); !status.ok()) return status;
  }
  return scan;
}

std::string Describe(const std::vector<Leak>& leaks) {
  std::string text;
  for (const Leak& leak : leaks) {
    absl::StrAppend(&text, "  the ", leak.what, " (", leak.form, ") in ", leak.where, ": ...", leak.context, "...\n");
  }
  return text;
}

}  // namespace noveltygrid::testing
