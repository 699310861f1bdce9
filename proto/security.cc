#include "proto/security.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "common/json_util.h"
#include "common/text.h"
#include "grpcpp/client_context.h"

namespace noveltygrid {

absl::StatusOr<std::string> LoadToken(const std::string& token_file) {
  std::string token;
  std::string source;
  if (!token_file.empty()) {
    absl::StatusOr<std::string> text = ReadFile(token_file);
    if (!text.ok()) return absl::NotFoundError(absl::StrCat("cannot read the token file: ", text.status().message()));
    token = std::string(StripWhitespace(*text));
    source = token_file;
  } else if (const char* env = std::getenv(kTokenEnv); env != nullptr) {
    token = std::string(StripWhitespace(env));
    source = kTokenEnv;
  }
  if (token.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("no shared token: set the environment variable ", kTokenEnv,
                     " (the same value on the coordinator and every worker) or pass --token-file FILE",
                     source.empty() ? "" : absl::StrCat(" (", source, " is empty)")));
  }
  return token;
}

namespace {
absl::StatusOr<std::string> ReadPem(const std::string& path, const char* what) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return absl::NotFoundError(absl::StrCat("cannot read the TLS ", what, ": ", text.status().message()));
  return *text;
}

struct CertAndKey {
  std::string cert;
  std::string key;
};

// The PEM certificate and private key named by --tls-cert and --tls-key.
absl::StatusOr<CertAndKey> ReadCertAndKey(const TlsFiles& tls) {
  absl::StatusOr<std::string> cert = ReadPem(tls.cert, "certificate");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem(tls.key, "key");
  if (!key.ok()) return key.status();
  return CertAndKey{*std::move(cert), *std::move(key)};
}
}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(const TlsFiles& tls) {
  if (!tls.enabled()) return grpc::InsecureServerCredentials();
  if (tls.cert.empty() || tls.key.empty()) {
    return absl::InvalidArgumentError("TLS on the server needs both --tls-cert and --tls-key");
  }
  grpc::SslServerCredentialsOptions options;
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  absl::StatusOr<CertAndKey> files = ReadCertAndKey(tls);
  if (!files.ok()) return files.status();
  pair.cert_chain = files->cert;
  pair.private_key = files->key;
  options.pem_key_cert_pairs.push_back(pair);
  if (!tls.ca.empty()) {
    absl::StatusOr<std::string> ca = ReadPem(tls.ca, "client CA");
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *ca;
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(const TlsFiles& tls) {
  if (!tls.enabled()) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions options;
  if (!tls.ca.empty()) {
    absl::StatusOr<std::string> ca = ReadPem(tls.ca, "CA");
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *ca;
  }
  if (!tls.cert.empty() || !tls.key.empty()) {
    if (tls.cert.empty() || tls.key.empty()) {
      return absl::InvalidArgumentError("a client certificate needs both --tls-cert and --tls-key");
    }
    absl::StatusOr<CertAndKey> files = ReadCertAndKey(tls);
    if (!files.ok()) return files.status();
    options.pem_cert_chain = files->cert;
    options.pem_private_key = files->key;
  }
  return grpc::SslCredentials(options);
}

std::string PresentedToken(const grpc::ServerContextBase& context) {
  constexpr std::string_view kBearer = "Bearer ";
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(kAuthMetadata);
  if (it == metadata.end()) return "";
  const std::string_view got(it->second.data(), it->second.size());
  if (got.substr(0, kBearer.size()) != kBearer) return "";
  return std::string(got.substr(kBearer.size()));
}

bool TokenMatches(std::string_view presented, std::string_view token) {
  if (presented.empty() || presented.size() != token.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < token.size(); ++i) diff |= static_cast<unsigned char>(presented[i] ^ token[i]);
  return diff == 0;
}

void Authorize(grpc::ClientContext& context, const std::string& token) {
  context.AddMetadata(kAuthMetadata, "Bearer " + token);
}

}  // namespace noveltygrid
