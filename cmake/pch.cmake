# Precompiled headers (NOVELTYGRID_PCH, on by default). cmake/pch/common_headers.h -- the standard
# library, Abseil, protobuf and nlohmann/json headers nearly every file includes -- is compiled once
# per build and reused by every target of the project; test targets (those linking GoogleTest) reuse
# cmake/pch/test_headers.h, which adds gtest and gmock. Measured in BENCHMARKS.md ("Build time").
#
# Reuse needs one flag set: clang refuses a PCH built without -pthread in a file compiled with it,
# so -pthread (harmless on Linux) is given to every file. Call noveltygrid_apply_pch() once, after
# the last add_subdirectory. A file still includes what it uses: a build with -DNOVELTYGRID_PCH=OFF
# (the developer's build/ here) is the check.
option(NOVELTYGRID_PCH "Precompile the common third-party headers once per build" ON)
if(NOVELTYGRID_PCH)
  add_compile_options(-pthread)
  # Some packages' targets add it (a no-op on 64-bit Linux); gcc ignores a PCH built without it.
  add_compile_definitions(_FILE_OFFSET_BITS=64)
endif()

# Collects the build-system targets defined in DIR and below into OUT.
function(noveltygrid_targets_below dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    noveltygrid_targets_below(${sub} below)
    list(APPEND targets ${below})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(noveltygrid_apply_pch)
  if(NOT NOVELTYGRID_PCH)
    return()
  endif()
  set(pch_dir ${CMAKE_SOURCE_DIR}/cmake/pch)
  add_library(noveltygrid_pch STATIC ${pch_dir}/empty.cc)
  target_link_libraries(noveltygrid_pch PRIVATE absl::status absl::statusor absl::strings absl::str_format
    absl::synchronization absl::time absl::flat_hash_map nlohmann_json::nlohmann_json)
  target_precompile_headers(noveltygrid_pch PRIVATE ${pch_dir}/common_headers.h)
  set(have_test_pch FALSE)
  if(TARGET GTest::gtest)
    add_library(noveltygrid_test_pch STATIC ${pch_dir}/empty.cc)
    target_link_libraries(noveltygrid_test_pch PRIVATE GTest::gtest GTest::gmock absl::status absl::statusor
      absl::strings absl::str_format absl::synchronization absl::time absl::flat_hash_map
      nlohmann_json::nlohmann_json)
    target_precompile_headers(noveltygrid_test_pch PRIVATE ${pch_dir}/test_headers.h)
    set(have_test_pch TRUE)
  endif()

  noveltygrid_targets_below(${CMAKE_SOURCE_DIR} targets)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$"
       OR target MATCHES "^noveltygrid_(test_)?pch$" OR target STREQUAL "noveltygrid_tsan_sync")
      continue()
    endif()
    get_target_property(libs ${target} LINK_LIBRARIES)
    if(have_test_pch AND libs MATCHES "GTest::")
      target_precompile_headers(${target} REUSE_FROM noveltygrid_test_pch)
    else()
      target_precompile_headers(${target} REUSE_FROM noveltygrid_pch)
    endif()
  endforeach()
endfunction()
