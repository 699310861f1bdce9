#include "tests/chaos/net_namespace.h"

#include <unistd.h>

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/integration/cluster_harness.h"
#include "tests/integration/process.h"

namespace noveltygrid::testing {

absl::StatusOr<std::unique_ptr<NetNamespace>> NetNamespace::Create() {
  std::optional<std::string> ip = FindOnPath("ip");
  for (const char* candidate : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"}) {
    if (!ip.has_value() && ::access(candidate, X_OK) == 0) ip = candidate;
  }
  if (!ip.has_value()) return absl::UnavailableError("no `ip` binary (install iproute2)");
  // A /30 per test process, from its pid: 10.(100..199).(0..255).{1,2}.
  const int pid = static_cast<int>(::getpid());
  const std::string net = absl::StrCat("10.", 100 + pid % 100, ".", (pid / 100) % 256, ".");
  std::unique_ptr<NetNamespace> ns(
      new NetNamespace(*ip, absl::StrCat("ngchaos", pid), absl::StrCat(net, 1), absl::StrCat(net, 2)));
  if (absl::Status up = ns->SetUp(); !up.ok()) return up;  // the destructor removes what was made
  return ns;
}

NetNamespace::NetNamespace(std::string ip, std::string name, std::string root_ip, std::string peer_ip)
    : ip_(std::move(ip)),
      name_(name),
      root_veth_(absl::StrCat("ngr", name.substr(7))),  // interface names are limited to 15 characters
      peer_veth_(absl::StrCat("ngp", name.substr(7))),
      root_ip_(std::move(root_ip)),
      peer_ip_(std::move(peer_ip)) {}

NetNamespace::~NetNamespace() {
  // Deleting one end of a veth pair deletes both; deleting the namespace would too, but only once
  // nothing runs inside it any more.
  if (veth_added_) (void)Ip({"link", "del", root_veth_});
  if (namespace_added_) (void)Ip({"netns", "del", name_});
}

std::vector<std::string> NetNamespace::Prefix() const { return {ip_, "netns", "exec", name_}; }

absl::Status NetNamespace::SetUp() {
  if (absl::Status added = Ip({"netns", "add", name_}); !added.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot create a network namespace (needs root / CAP_NET_ADMIN): ", added.message()));
  }
  namespace_added_ = true;
  if (absl::Status added = Ip({"link", "add", root_veth_, "type", "veth", "peer", "name", peer_veth_}); !added.ok()) {
    return added;
  }
  veth_added_ = true;
  const std::vector<std::vector<std::string>> steps = {
      {"link", "set", peer_veth_, "netns", name_},
      {"addr", "add", absl::StrCat(root_ip_, "/30"), "dev", root_veth_},
      {"link", "set", root_veth_, "up"},
      {"-n", name_, "addr", "add", absl::StrCat(peer_ip_, "/30"), "dev", peer_veth_},
      {"-n", name_, "link", "set", "lo", "up"},
      {"-n", name_, "link", "set", peer_veth_, "up"},
  };
  for (const std::vector<std::string>& step : steps) {
    if (absl::Status done = Ip(step); !done.ok()) return done;
  }
  return absl::OkStatus();
}

absl::Status NetNamespace::Cut() { return Ip({"-n", name_, "link", "set", peer_veth_, "down"}); }
absl::Status NetNamespace::Heal() { return Ip({"-n", name_, "link", "set", peer_veth_, "up"}); }

absl::Status NetNamespace::Ip(std::vector<std::string> args) const {
  ProcessOptions options;
  options.args.push_back(ip_);
  options.args.insert(options.args.end(), args.begin(), args.end());
  options.timeout = absl::Seconds(20);
  const std::string command = absl::StrJoin(options.args, " ");
  absl::StatusOr<std::unique_ptr<Process>> process = Process::Start(std::move(options));
  if (!process.ok()) return process.status();
  const int code = (*process)->Wait();
  if (code != 0) return absl::InternalError(absl::StrCat("`", command, "` exited ", code, ": ", (*process)->Output()));
  return absl::OkStatus();
}

}  // namespace noveltygrid::testing
