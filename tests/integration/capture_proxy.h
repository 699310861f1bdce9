// CaptureProxy: a loopback TCP proxy for tests that forwards every connection to an upstream address
// and records the bytes of both directions -- put in front of a coordinator, it captures every gRPC
// call its workers and status clients make, as sent on the wire (plaintext HTTP/2, "h2c").
//
// Http2Split() then reads the recorded streams as HTTP/2 frames and separates what the transport
// carries (HEADERS / CONTINUATION: the HPACK-encoded metadata, e.g. `authorization`) from what the
// calls carry (DATA: the length-prefixed gRPC messages, each a serialized protobuf), so a test can
// hold each to a different rule.
//
// Thread-safe. One thread accepts, two per connection copy bytes (each appends what it reads to the
// connection's record under the lock before forwarding it); the destructor shuts every socket down
// and joins them all. Nothing is parsed while bytes flow: call Http2Split() once the clients are done.
#ifndef NOVELTYGRID_TESTS_INTEGRATION_CAPTURE_PROXY_H_
#define NOVELTYGRID_TESTS_INTEGRATION_CAPTURE_PROXY_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace noveltygrid::testing {

// The HTTP/2 frames of a capture, by kind.
struct Http2Traffic {
  std::string header_blocks;  // HEADERS and CONTINUATION payloads (HPACK), both directions
  std::string messages;       // the gRPC messages of every stream, without their 5-byte prefixes
  std::string other;          // the payloads of every other frame (SETTINGS, PING, GOAWAY, ...)
  int64_t message_count = 0;
  int64_t compressed_messages = 0;  // a compressed message's bytes would hide a secret from a scan
  std::string errors;               // what could not be parsed (empty: everything)
};

class CaptureProxy {
 public:
  // Listens on `listen_host` (an IPv4 address; a free port) and forwards each connection to
  // `upstream_port` on 127.0.0.1; a connection the upstream refuses is closed at once. Without `record`
  // it only forwards (Raw() and Http2Split() then see nothing): the chaos test lets a worker in a
  // network namespace reach the loopback-only Redis through it.
  static absl::StatusOr<std::unique_ptr<CaptureProxy>> Start(int upstream_port,
                                                             const std::string& listen_host = "127.0.0.1",
                                                             bool record = true);
  ~CaptureProxy();
  CaptureProxy(const CaptureProxy&) = delete;
  CaptureProxy& operator=(const CaptureProxy&) = delete;

  // "HOST:PORT", for clients.
  std::string address() const { return listen_host_ + ":" + std::to_string(port_); }
  int port() const { return port_; }

  // Every byte recorded so far, both directions of every connection, concatenated.
  std::string Raw() const;
  // The recorded streams read as HTTP/2 (client streams start with the connection preface).
  Http2Traffic Http2Split() const;

 private:
  struct Connection {
    int client_fd = -1;
    int upstream_fd = -1;
    std::string from_client;
    std::string from_upstream;
    std::thread to_upstream;
    std::thread to_client;
  };

  CaptureProxy(int listen_fd, std::string listen_host, int port, int upstream_port, bool record);
  void AcceptLoop();
  // Copies `from` to `to` until `from` ends, appending what it reads to `*record`.
  void Pump(int from, int to, std::string* record);

  // Constant after construction.
  const int listen_fd_;
  const std::string listen_host_;
  const int port_;
  const int upstream_port_;
  const bool record_;

  mutable absl::Mutex mu_;
  // Connection records are appended to by their pumps; the list grows by the accept thread only.
  std::vector<std::unique_ptr<Connection>> connections_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;

  std::thread acceptor_;
};

}  // namespace noveltygrid::testing

#endif  // NOVELTYGRID_TESTS_INTEGRATION_CAPTURE_PROXY_H_
