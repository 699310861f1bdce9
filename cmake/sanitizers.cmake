# Sanitizer and fuzzing flags, chosen by NOVELTYGRID_SANITIZE and NOVELTYGRID_FUZZ (see CMakeLists.txt).
string(TOLOWER "${NOVELTYGRID_SANITIZE}" ng_sanitize)
if(ng_sanitize STREQUAL "on")
  set(ng_sanitize address)  # the old boolean form
endif()
if(ng_sanitize STREQUAL "address")
  set(ng_sanitize_flags -fsanitize=address,undefined -fno-sanitize-recover=undefined)
elseif(ng_sanitize STREQUAL "thread")
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "NOVELTYGRID_SANITIZE=thread needs clang (-DCMAKE_CXX_COMPILER=clang++)")
  endif()
  set(ng_sanitize_flags -fsanitize=thread)
elseif(NOT ng_sanitize MATCHES "^(off|)$")
  message(FATAL_ERROR "NOVELTYGRID_SANITIZE=${NOVELTYGRID_SANITIZE}: expected OFF, address or thread")
endif()
if(NOVELTYGRID_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT ng_sanitize STREQUAL "address")
    message(FATAL_ERROR "NOVELTYGRID_FUZZ needs clang and NOVELTYGRID_SANITIZE=address "
                        "(-DCMAKE_CXX_COMPILER=clang++ -DNOVELTYGRID_SANITIZE=address)")
  endif()
  # Coverage for libFuzzer in every object; only the fuzz targets link its main (-fsanitize=fuzzer).
  list(APPEND ng_sanitize_flags -fsanitize=fuzzer-no-link)
endif()
if(ng_sanitize_flags)
  add_compile_options(${ng_sanitize_flags} -fno-omit-frame-pointer)
  add_link_options(${ng_sanitize_flags})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    # Line tables are all a report needs, and much cheaper to build than full debug info.
    add_compile_options(-gline-tables-only)
  endif()
endif()
if(ng_sanitize STREQUAL "thread")
  # Annotations for the uninstrumented Abseil synchronization library, linked into every test
  # executable (noveltygrid_test adds NOVELTYGRID_TSAN_OBJECTS).
  add_library(noveltygrid_tsan_sync OBJECT ${CMAKE_SOURCE_DIR}/tests/tsan/absl_sync_annotations.cc)
  target_link_libraries(noveltygrid_tsan_sync PRIVATE absl::synchronization)
  set(NOVELTYGRID_TSAN_OBJECTS $<TARGET_OBJECTS:noveltygrid_tsan_sync>)
endif()
