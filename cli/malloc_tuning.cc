#include "cli/malloc_tuning.h"

#include <sys/types.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"

// jemalloc's control interface; null when the binary is not linked with jemalloc (weak reference).
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen) __attribute__((weak));

namespace noveltygrid::cli {

bool ReturnFreedPagesPromptly() {
  if (mallctl == nullptr || std::getenv("MALLOC_CONF") != nullptr) return false;
  // Left alone when set some other way (/etc/malloc.conf, a build's own default): not jemalloc's 10 s.
  ssize_t configured = 0;
  size_t configured_size = sizeof(configured);
  if (mallctl("opt.dirty_decay_ms", &configured, &configured_size, nullptr, 0) != 0 || configured != 10'000) {
    return false;
  }
  ssize_t decay_ms = kFreedPageDecayMs;
  // Arenas made from now on, then every arena that exists (an index not in use answers an error).
  if (mallctl("arenas.dirty_decay_ms", nullptr, nullptr, &decay_ms, sizeof(decay_ms)) != 0) return false;
  unsigned arenas = 0;
  size_t size = sizeof(arenas);
  if (mallctl("arenas.narenas", &arenas, &size, nullptr, 0) != 0) return false;
  for (unsigned i = 0; i < arenas; ++i) {
    const std::string name = absl::StrCat("arena.", i, ".dirty_decay_ms");
    mallctl(name.c_str(), nullptr, nullptr, &decay_ms, sizeof(decay_ms));
  }
  return true;
}

}  // namespace noveltygrid::cli
