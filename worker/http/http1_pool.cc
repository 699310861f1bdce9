// Http1Transport (http1_transport.h), the half that decides which connection carries a request: URLs
// taken apart into routes to a host's pool, and the pools -- idle connections reused newest first,
// the caps per host and in total, the requests waiting for room, and closing. The exchange on a
// connection (opening it, writing the request, reading the reply, timeouts) is http1_transport.cc.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "worker/http/http1_transport.h"

namespace noveltygrid::http1 {
namespace {

constexpr size_t kMaxRoutes = 256;  // distinct URLs kept parsed (a worker has a handful)

}  // namespace

std::optional<Http1Transport::Target> Http1Transport::ParseTarget(absl::string_view url) {
  absl::string_view rest(url);
  if (!absl::ConsumePrefix(&rest, "http://")) return std::nullopt;
  rest = rest.substr(0, rest.find('#'));
  const size_t path = rest.find_first_of("/?");
  const absl::string_view authority = rest.substr(0, path);
  absl::string_view host = authority;
  absl::string_view port_text;
  if (absl::StartsWith(authority, "[")) {  // [v6]:port
    const size_t close = authority.find(']');
    host = authority.substr(1, close == absl::string_view::npos ? 0 : close - 1);
    if (close != absl::string_view::npos && close + 1 < authority.size()) {
      port_text = authority.substr(close + 1);
      if (!absl::ConsumePrefix(&port_text, ":")) host = {};
    }
  } else if (const size_t colon = authority.rfind(':'); colon != absl::string_view::npos) {
    host = authority.substr(0, colon);
    port_text = authority.substr(colon + 1);
  }
  int port = 80;
  const bool port_ok = port_text.empty() || (absl::SimpleAtoi(port_text, &port) && port > 0 && port < 65536);
  Target t;
  const std::string host_text(host);
  auto* v4 = reinterpret_cast<sockaddr_in*>(&t.address);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&t.address);
  if (inet_pton(AF_INET, host_text.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    t.address_size = sizeof(sockaddr_in);
  } else if (inet_pton(AF_INET6, host_text.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    t.address_size = sizeof(sockaddr_in6);
  }
  const absl::string_view target_text = path == absl::string_view::npos ? absl::string_view() : rest.substr(path);
  const bool target_ok = std::none_of(target_text.begin(), target_text.end(),
                                      [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; });
  if (!port_ok || !target_ok || t.address_size == 0 || authority.find('@') != absl::string_view::npos) {
    return std::nullopt;
  }
  t.pool_key = absl::StrCat(host_text, ":", port);
  t.target = absl::StrCat(absl::StartsWith(target_text, "/") ? "" : "/", target_text);
  t.host_header = absl::StrCat("Host: ", authority, "\r\n");
  return t;
}

bool Http1Transport::Carries(absl::string_view url) { return ParseTarget(url).has_value(); }

Http1Transport::Route* Http1Transport::FindRoute(const std::string& url) {
  if (auto it = routes_.find(url); it != routes_.end()) return it->second.get();
  if (routes_.size() >= kMaxRoutes) return nullptr;
  std::unique_ptr<Route> route;
  if (std::optional<Target> t = ParseTarget(url)) {
    std::unique_ptr<Pool>& pool = pools_[t->pool_key];
    if (pool == nullptr) {
      pool = std::make_unique<Pool>();
      pool->address = t->address;
      pool->address_size = t->address_size;
      pool->name = t->pool_key;
    }
    route = std::make_unique<Route>();
    route->pool = pool.get();
    route->target = std::move(t->target);
    route->host_header = std::move(t->host_header);
  }
  Route* found = route.get();
  routes_.emplace(url, std::move(route));
  return found;
}

bool Http1Transport::HostRoom(const Pool& pool) const {
  return options_.max_connections_per_host == 0 || pool.open < options_.max_connections_per_host;
}

bool Http1Transport::TotalRoom() const {
  return options_.max_total_connections == 0 || open_ < options_.max_total_connections;
}

Http1Transport::Conn* Http1Transport::OldestIdle() {
  for (auto& [key, pool] : pools_) {
    if (!pool->idle.empty()) return pool->idle.front();
  }
  return nullptr;
}

void Http1Transport::Dispatch(Call* call, bool fresh) {
  Pool& pool = *call->route->pool;
  if (!fresh && !pool.idle.empty()) {
    Conn* conn = pool.idle.back();
    pool.idle.pop_back();
    Assign(conn, call);
    Send(conn);
    return;
  }
  // A new connection; at a cap, an idle one (this host's at its cap, any host's at the total cap) is
  // closed to make room, as curl does, so that no host starves behind another's idle connections.
  if (!HostRoom(pool) || !TotalRoom()) {
    // At this host's cap only its own idle connection makes room; at the total cap any host's does.
    Conn* idle = HostRoom(pool) ? OldestIdle() : pool.idle.empty() ? nullptr : pool.idle.front();
    if (idle != nullptr) Close(idle);
  }
  if (HostRoom(pool) && TotalRoom()) {
    Open(pool, call);
  } else {
    pool.waiting.push_back(call);
  }
}

void Http1Transport::Drain() {
  if (draining_) return;  // the outer call's loop picks up what was added
  draining_ = true;
  while (!wake_.empty()) {
    Pool* pool = wake_.back();
    wake_.pop_back();
    while (HostRoom(*pool) && TotalRoom()) {
      Call* next = NextWaiting(*pool);
      if (next == nullptr) break;
      Dispatch(next, /*fresh=*/false);
    }
  }
  draining_ = false;
}

void Http1Transport::Release(Conn* conn) {
  conn->reused = true;
  Pool& pool = *conn->pool;
  if (Call* next = NextWaiting(pool); next != nullptr) {
    Assign(conn, next);
    Send(conn);
    return;
  }
  if (!TotalRoom()) {
    for (auto& [key, other] : pools_) {
      if (!other->waiting.empty() && HostRoom(*other)) {  // waiting for room under the total cap: this makes it
        Close(conn);
        return;
      }
    }
  }
  conn->idle_index = pool.idle.size();
  pool.idle.push_back(conn);
}

void Http1Transport::Close(Conn* conn) {
  Pool& pool = *conn->pool;
  if (conn->call == nullptr) {  // idle: out of the idle list (a no-op for one that was never in it)
    const size_t i = conn->idle_index;
    if (i < pool.idle.size() && pool.idle[i] == conn) {
      pool.idle[i] = pool.idle.back();
      pool.idle[i]->idle_index = i;
      pool.idle.pop_back();
    }
  }
  close(conn->fd);  // also leaves the epoll set
  conn->fd = -1;
  conn->call = nullptr;
  conn->head.clear();
  conn->head.shrink_to_fit();
  free_slots_.push_back(conn->slot);
  --pool.open;
  --open_;
  // Room for a waiting request: of this host, or (the total cap) of any. Dispatched by Drain() from the
  // outermost call, so a queue of requests whose connections fail at once is a loop, not a recursion.
  if (!pool.waiting.empty()) {
    wake_.push_back(&pool);
  } else {
    for (auto& [key, other] : pools_) {
      if (!other->waiting.empty()) wake_.push_back(other.get());
    }
  }
}

Http1Transport::Call* Http1Transport::NextWaiting(Pool& pool) {
  while (!pool.waiting.empty()) {
    Call* next = pool.waiting.front();
    pool.waiting.pop_front();
    if (!next->finished) return next;
    delete next;  // timed out while it waited
  }
  return nullptr;
}

}  // namespace noveltygrid::http1
