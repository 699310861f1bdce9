#include "worker/http/curl_api.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace noveltygrid::curl_http {
namespace {

// curl's ABI has kept this soname since 2006.
constexpr char kLibrary[] = "libcurl.so.4";

std::atomic<const CurlApi*> loaded_api{nullptr};  // set once LoadCurl() succeeded

absl::StatusOr<const CurlApi*> Load() {
  // Never closed: curl keeps global state (TLS backends) for the life of the process.
  void* lib = ::dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot load ", kLibrary, " (", why != nullptr ? why : "unknown reason",
        "); requests other than plain http:// to an IP address need libcurl: install the libcurl4 package"));
  }
  auto* api = new CurlApi();
  std::string missing;
  auto bind = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
    if (fn == nullptr) absl::StrAppend(&missing, missing.empty() ? "" : ", ", name);
  };
  bind(api->easy_init, "curl_easy_init");
  bind(api->easy_setopt, "curl_easy_setopt");
  bind(api->easy_getinfo, "curl_easy_getinfo");
  bind(api->easy_cleanup, "curl_easy_cleanup");
  bind(api->easy_strerror, "curl_easy_strerror");
  bind(api->multi_init, "curl_multi_init");
  bind(api->multi_setopt, "curl_multi_setopt");
  bind(api->multi_add_handle, "curl_multi_add_handle");
  bind(api->multi_remove_handle, "curl_multi_remove_handle");
  bind(api->multi_socket_action, "curl_multi_socket_action");
  bind(api->multi_info_read, "curl_multi_info_read");
  bind(api->multi_strerror, "curl_multi_strerror");
  bind(api->multi_cleanup, "curl_multi_cleanup");
  bind(api->url, "curl_url");
  bind(api->url_set, "curl_url_set");
  bind(api->url_cleanup, "curl_url_cleanup");
  bind(api->slist_append, "curl_slist_append");
  bind(api->slist_free_all, "curl_slist_free_all");
  bind(api->getdate, "curl_getdate");
  auto* global_init = reinterpret_cast<decltype(&::curl_global_init)>(::dlsym(lib, "curl_global_init"));
  if (global_init == nullptr) absl::StrAppend(&missing, missing.empty() ? "" : ", ", "curl_global_init");
  if (!missing.empty()) {
    delete api;
    return absl::FailedPreconditionError(
        absl::StrCat(kLibrary, " lacks ", missing, " (libcurl 7.62 or later is needed)"));
  }
  if (const CURLcode code = global_init(CURL_GLOBAL_DEFAULT); code != CURLE_OK) {
    delete api;
    return absl::InternalError(absl::StrCat("curl_global_init failed with code ", static_cast<int>(code)));
  }
  return api;
}

}  // namespace

absl::StatusOr<const CurlApi*> LoadCurl() {
  static const absl::StatusOr<const CurlApi*>* const loaded = [] {
    auto* result = new absl::StatusOr<const CurlApi*>(Load());
    if (result->ok()) loaded_api.store(**result, std::memory_order_release);
    return result;
  }();
  return *loaded;
}

const CurlApi& Curl() {
  const CurlApi* api = loaded_api.load(std::memory_order_acquire);
  if (api == nullptr) {
    std::fputs("noveltygrid: libcurl called before LoadCurl() succeeded\n", stderr);
    std::abort();
  }
  return *api;
}

}  // namespace noveltygrid::curl_http
