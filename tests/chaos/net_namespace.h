// NetNamespace: a network namespace joined to the root namespace by a veth pair, for the chaos test's
// network partition. The root end holds ROOT_IP/30 and the namespace end PEER_IP/30; a process started
// through Prefix() runs inside the namespace and reaches the root namespace's listeners (on 0.0.0.0 or
// ROOT_IP) at RootIp(). Cut() takes the namespace end down (packets both ways are dropped; the root end
// and its address stay up, so root-namespace processes can still use ROOT_IP) and Heal() brings it back.
//
// Names carry the test process's pid, so parallel runs do not collide; the destructor deletes the veth
// pair and the namespace whatever happened. Needs root (CAP_NET_ADMIN) and `ip`: Create() fails with
// a message saying what is missing, and the caller skips the partition. Used from the test thread only.
#ifndef NOVELTYGRID_TESTS_CHAOS_NET_NAMESPACE_H_
#define NOVELTYGRID_TESTS_CHAOS_NET_NAMESPACE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace noveltygrid::testing {

class NetNamespace {
 public:
  static absl::StatusOr<std::unique_ptr<NetNamespace>> Create();
  ~NetNamespace();
  NetNamespace(const NetNamespace&) = delete;
  NetNamespace& operator=(const NetNamespace&) = delete;

  const std::string& name() const { return name_; }
  const std::string& RootIp() const { return root_ip_; }
  // `ip netns exec NAME`: put it before a command line to run that command inside the namespace.
  std::vector<std::string> Prefix() const;

  absl::Status Cut();
  absl::Status Heal();

 private:
  NetNamespace(std::string ip, std::string name, std::string root_ip, std::string peer_ip);
  // Runs `ip ARGS...` to its exit; an error with its output unless it exits 0.
  absl::Status Ip(std::vector<std::string> args) const;
  absl::Status SetUp();

  const std::string ip_;  // the `ip` binary
  const std::string name_;
  const std::string root_veth_;
  const std::string peer_veth_;
  const std::string root_ip_;
  const std::string peer_ip_;
  bool namespace_added_ = false;
  bool veth_added_ = false;
};

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_CHAOS_NET_NAMESPACE_H_
