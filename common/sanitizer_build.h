// Which sanitizer this file is compiled under, for the few places that must behave differently in one:
// NOVELTYGRID_TSAN_BUILD / NOVELTYGRID_ASAN_BUILD are defined (as 1) under ThreadSanitizer /
// AddressSanitizer. GCC says so with __SANITIZE_THREAD__ / __SANITIZE_ADDRESS__, Clang through
// __has_feature; cmake/sanitizers.cmake accepts either compiler.
#ifndef NOVELTYGRID_COMMON_SANITIZER_BUILD_H_
#define NOVELTYGRID_COMMON_SANITIZER_BUILD_H_

#if defined(__SANITIZE_THREAD__)
#define NOVELTYGRID_TSAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NOVELTYGRID_TSAN_BUILD 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#define NOVELTYGRID_ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NOVELTYGRID_ASAN_BUILD 1
#endif
#endif

#endif  // NOVELTYGRID_COMMON_SANITIZER_BUILD_H_
