// Authentication and transport security shared by the coordinator and the workers.
//
// Workers present a shared token in the "authorization: Bearer TOKEN" metadata of every call. The
// token comes from a file (--token-file) or the environment variable NOVELTYGRID_TOKEN, never from a
// flag, and is never logged. TLS is optional: a server certificate and key, plus a client CA for
// mutual TLS; clients give the CA that signed the server certificate, and their own certificate and
// key for mutual TLS.
#ifndef NOVELTYGRID_PROTO_SECURITY_H_
#define NOVELTYGRID_PROTO_SECURITY_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_context.h"

namespace noveltygrid {

inline constexpr char kTokenEnv[] = "NOVELTYGRID_TOKEN";
inline constexpr char kAuthMetadata[] = "authorization";

// Reads the token from `token_file` when given, else from NOVELTYGRID_TOKEN. Surrounding whitespace
// is trimmed. A missing or empty token is an error saying where to put one.
absl::StatusOr<std::string> LoadToken(const std::string& token_file);

struct TlsFiles {
  std::string cert;  // PEM certificate (server: required for TLS; client: for mutual TLS)
  std::string key;   // PEM private key matching `cert`
  std::string ca;    // server: CA that must have signed client certificates (mutual TLS);
                     // client: CA that signed the server certificate
  bool enabled() const { return !cert.empty() || !ca.empty(); }
};

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(const TlsFiles& tls);
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(const TlsFiles& tls);

// The token an incoming call presents ("authorization: Bearer TOKEN" metadata); empty when none.
std::string PresentedToken(const grpc::ServerContextBase& context);

// True when `presented` is the (non-empty) `token`, compared in constant time.
bool TokenMatches(std::string_view presented, std::string_view token);

// Adds the token to an outgoing call.
void Authorize(grpc::ClientContext& context, const std::string& token);

}  // namespace noveltygrid

#endif  // NOVELTYGRID_PROTO_SECURITY_H_
