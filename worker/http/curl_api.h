// CurlApi: libcurl's functions, loaded with dlopen on first use instead of linked.
//
// Linked, libcurl and its dependency chain (OpenSSL, GnuTLS, Kerberos, LDAP, SSH, ...) are mapped,
// relocated and initialised at every start of every noveltygrid command: ~12 ms of a ~23 ms start
// on the benchmark machine (BENCHMARKS.md, issue 18 item 1), paid by `status`, `report` and a sweep
// whose providers are all plain http:// to an IP address (those requests go over http1_transport.h).
// Loaded here, it costs only the processes with a request curl carries: an https:// or host-name URL,
// a proxy, compressed replies, NOVELTYGRID_HTTP1=curl (HttpClient::CheckUrl loads it for a provider).
//
// Internal to worker/http: the curl transport (curl_multi.cc), its transfers (curl_transfer.cc) and the
// client's CheckUrl (http_client.cc, LoadCurl only) call libcurl only through here.
#ifndef NOVELTYGRID_WORKER_HTTP_CURL_API_H_
#define NOVELTYGRID_WORKER_HTTP_CURL_API_H_

#include <curl/curl.h>

#include "absl/status/statusor.h"

namespace noveltygrid::curl_http {

struct CurlApi {
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_multi_init) multi_init;
  decltype(&::curl_multi_setopt) multi_setopt;
  decltype(&::curl_multi_add_handle) multi_add_handle;
  decltype(&::curl_multi_remove_handle) multi_remove_handle;
  decltype(&::curl_multi_socket_action) multi_socket_action;
  decltype(&::curl_multi_info_read) multi_info_read;
  decltype(&::curl_multi_strerror) multi_strerror;
  decltype(&::curl_multi_cleanup) multi_cleanup;
  decltype(&::curl_url) url;
  decltype(&::curl_url_set) url_set;
  decltype(&::curl_url_cleanup) url_cleanup;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
  decltype(&::curl_getdate) getdate;
};

// Loads libcurl (libcurl.so.4) and runs curl_global_init, once per process; thread-safe. The same
// answer every call. The error names the library and says why it could not be used.
absl::StatusOr<const CurlApi*> LoadCurl();

// The loaded functions. Only after LoadCurl() succeeded (the process aborts otherwise).
const CurlApi& Curl();

}  // namespace noveltygrid::curl_http

#endif  // NOVELTYGRID_WORKER_HTTP_CURL_API_H_
