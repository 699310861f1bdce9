// Transfer: one HTTP request on a libcurl easy handle, from Send to its callback -- the per-request
// half of the curl transport (curl_multi.h drives the transfers on the client's event loop): header lists,
// the body and header callbacks, and the one place curl errors become Status.
//
// Internal to worker/http. A Transfer belongs to the client's loop thread.
#ifndef NOVELTYGRID_WORKER_HTTP_CURL_TRANSFER_H_
#define NOVELTYGRID_WORKER_HTTP_CURL_TRANSFER_H_

#include <curl/curl.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "worker/http/curl_api.h"
#include "worker/http/http_client.h"
#include "worker/http/reply_headers.h"

namespace noveltygrid::curl_http {

using http_reply::RedactUrl;
// Milliseconds for curl's timeouts: rounded up, at least 1.
long ToMillis(absl::Duration d);

// The one place curl errors become Status. `detail` is curl's error buffer (no request headers).
absl::Status CurlError(CURLcode code, const char* detail, const HttpRequest& request);

// One request from Send to its callback. Pooled with its easy handle, so steady traffic allocates
// neither handles nor header lists: the curl_slist is rebuilt only when a request's headers differ
// from those of the transfer's previous request (a provider sends the same ones every time).
struct Transfer {
  CURL* easy = nullptr;
  size_t slot = 0;  // index in the loop's active list
  std::shared_ptr<const HttpRequest> request;
  HttpCallback done;
  curl_slist* headers = nullptr;
  std::vector<std::string> headers_source;  // what `headers` was built from
  HttpResponse response;
  http_reply::ReplyHeaders reply_headers;
  char error[CURL_ERROR_SIZE] = {};
  size_t max_body = 0;     // HttpClientOptions::max_response_bytes (0: no limit); constant per client
  bool too_large = false;  // the reply passed max_body: the body callbacks cut the transfer off

  // Sets everything that varies per request on the pooled handle, which keeps its constant options
  // (no curl_easy_reset: that frees and re-allocates curl's buffers every time). `user_agent` is the
  // client's "User-Agent: ..." line; `parsed_url` the request's URL parsed for CURLOPT_CURLU, or null.
  void Prepare(std::shared_ptr<const HttpRequest> next, HttpCallback callback, const std::string& user_agent,
               CURLU* parsed_url);
  // Points the easy handle's body and header callbacks at this transfer.
  void InstallCallbacks();
  // The reply of a transfer that completed: status, body, content type and the wait hint.
  HttpResponse TakeResponse();
  // The error of a transfer that failed with `code`: OutOfRange when the body limit cut it off, else
  // CurlError.
  absl::Status Failure(CURLcode code) const;
  void Clear();

  ~Transfer() { Curl().slist_free_all(headers); }

 private:
  // The user agent goes in as a header line unless the request has its own, rather than as
  // CURLOPT_USERAGENT, which curl formats afresh for every request.
  void SetHeaders(const std::vector<std::string>& wanted, const std::string& user_agent);
};

}  // namespace noveltygrid::curl_http

#endif  // NOVELTYGRID_WORKER_HTTP_CURL_TRANSFER_H_
